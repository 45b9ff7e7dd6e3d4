// sinew against ozz-animation, in one process, on the same data: blending 2 / 4 / 8 layers with
// and without per-joint masks, and model-space matrices, for 24 and 64 joints of a humanoid
// hierarchy. Prints ns per joint for each library (best of many alternating rounds, so that
// noise from other processes hits both alike) and the ratio sinew / ozz. Built and run by
// `make bench-ozz OZZ_SRC=<ozz-animation checkout>`; ozz's own sources are compiled from that
// checkout with the flags of sinew's core. A benchmark: it prints figures, never fails on time.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <string>
#include <vector>

#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"

extern "C" {
#include "pose.h"
#include "skeleton.h"
}

#ifndef OZZ_VERSION_STR
#define OZZ_VERSION_STR "unknown version"
#endif
#ifndef BENCH_FLAGS
#define BENCH_FLAGS "unknown flags"
#endif

namespace {

const int kMaxLayers = 8;
const int kRounds = 25;            // alternating rounds per case; the best of each library counts
const double kRoundSeconds = 2e-3; // the length of one round (reps calibrated once per case)

double now() {  // seconds, monotonic
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned long seed = 777;
float rnd(float lo, float hi) {  // Park-Miller, as bench/c/bench_pose.c
  seed = (seed * 16807ul) % 2147483647ul;
  return lo + (hi - lo) * (float)((double)(seed - 1) / 2147483646.0);
}

// trs: tx ty tz qx qy qz qw sx sy sz, a unit rotation, scales in [0.5, 1.5]
void random_trs(float *v) {
  float l;
  for (int c = 0; c < 7; c++) v[c] = rnd(-1, 1);
  l = sqrtf(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
  for (int c = 3; c < 7; c++) v[c] /= l;
  for (int c = 7; c < 10; c++) v[c] = rnd(0.5f, 1.5f);
}

// A humanoid: pelvis, three spine joints, neck, head, jaw, head end; clavicle, upper arm,
// forearm, hand per side; thigh, calf, foot, toe per side (24 joints); with `fingers`, five
// fingers of four joints on each hand (64 joints).
struct Node {
  std::string name;
  int parent;
};

std::vector<Node> humanoid(bool fingers) {
  std::vector<Node> n;
  auto add = [&n](const std::string &name, int parent) {
    n.push_back(Node{name, parent});
    return (int)n.size() - 1;
  };
  int pelvis = add("pelvis", -1), spine = pelvis;
  for (int i = 1; i <= 3; i++) spine = add("spine" + std::to_string(i), spine);
  int neck = add("neck", spine), head = add("head", neck);
  add("jaw", head);
  add("head_end", head);
  for (const char *side : {"l", "r"}) {
    std::string s = side;
    int j = add("clavicle_" + s, spine);
    j = add("upperarm_" + s, j);
    j = add("forearm_" + s, j);
    int hand = add("hand_" + s, j);
    if (fingers)
      for (const char *f : {"thumb", "index", "middle", "ring", "pinky"}) {
        int k = hand;
        for (int i = 1; i <= 4; i++) k = add(std::string(f) + std::to_string(i) + "_" + s, k);
      }
    j = add("thigh_" + s, pelvis);
    j = add("calf_" + s, j);
    j = add("foot_" + s, j);
    add("toe_" + s, j);
  }
  return n;
}

void fill_raw(ozz::animation::offline::RawSkeleton::Joint::Children *children, const std::vector<Node> &nodes,
              int parent) {
  for (size_t i = 0; i < nodes.size(); i++) {
    if (nodes[i].parent != parent) continue;
    ozz::animation::offline::RawSkeleton::Joint j;
    float trs[10];
    random_trs(trs);
    j.name = nodes[i].name.c_str();
    j.transform.translation = ozz::math::Float3(trs[0], trs[1], trs[2]);
    j.transform.rotation = ozz::math::Quaternion(trs[3], trs[4], trs[5], trs[6]);
    j.transform.scale = ozz::math::Float3(trs[7], trs[8], trs[9]);
    fill_raw(&j.children, nodes, (int)i);
    children->push_back(j);
  }
}

// lane `j & 3` of channel `c` (trs order) of SoA transform block j / 4
float *soa_at(ozz::math::SoaTransform *t, int j, int c) {
  ozz::math::SoaTransform &b = t[j / 4];
  ozz::math::SimdFloat4 *ch[10] = {&b.translation.x, &b.translation.y, &b.translation.z, &b.rotation.x,
                                   &b.rotation.y,    &b.rotation.z,    &b.rotation.w,    &b.scale.x,
                                   &b.scale.y,       &b.scale.z};
  return reinterpret_cast<float *>(ch[c]) + (j & 3);
}

void *must(size_t size) {
  void *p = malloc(size);
  if (p == NULL) {
    fprintf(stderr, "bench_ozz: out of memory\n");
    exit(1);
  }
  return p;
}

// Everything one joint count needs, for both libraries, from the same numbers.
struct Rig {
  int joints;
  ozz::unique_ptr<ozz::animation::Skeleton> ozz_skeleton;
  std::vector<ozz::math::SoaTransform> ozz_layers[kMaxLayers], ozz_out;
  std::vector<ozz::math::SimdFloat4> ozz_masks[kMaxLayers];
  std::vector<ozz::math::Float4x4> ozz_models;
  sn_skeleton *skeleton = NULL;
  sn_pose *layers[kMaxLayers] = {}, *out = NULL;
  sn_mask *masks[kMaxLayers] = {};
  float *models = NULL;
  float weights[kMaxLayers];
};

void build_rig(Rig *r, bool fingers) {
  std::vector<Node> nodes = humanoid(fingers);
  ozz::animation::offline::RawSkeleton raw;
  fill_raw(&raw.roots, nodes, -1);
  r->ozz_skeleton = ozz::animation::offline::SkeletonBuilder()(raw);
  if (!r->ozz_skeleton) {
    fprintf(stderr, "bench_ozz: ozz's SkeletonBuilder failed\n");
    exit(1);
  }
  const ozz::animation::Skeleton &os = *r->ozz_skeleton;
  const int n = os.num_joints(), soa = os.num_soa_joints();
  r->joints = n;
  // sinew's skeleton in ozz's joint order (ozz orders it depth first), with ozz's rest pose
  std::vector<int> parents(n);
  std::vector<float> rest(10 * n);
  std::vector<ozz::math::SoaTransform> rest_soa(os.joint_rest_poses().begin(), os.joint_rest_poses().end());
  for (int j = 0; j < n; j++) {
    parents[j] = os.joint_parents()[j];
    for (int c = 0; c < 10; c++) rest[10 * j + c] = *soa_at(rest_soa.data(), j, c);
  }
  sn_skeleton_def sd;
  sn_skeleton_def_init(&sd);
  sd.count = n;
  sd.parents = parents.data();
  sd.names = os.joint_names().data();
  sd.rest = rest.data();
  size_t size = sn_skeleton_size(&sd, NULL);
  r->skeleton = (sn_skeleton *)must(size);
  if (sn_skeleton_init(r->skeleton, size, &sd, NULL) != SN_OK) exit(1);

  sn_pose_def pd;
  sn_pose_def_init(&pd);
  pd.skeleton = r->skeleton;
  size = sn_pose_size(&pd, NULL);
  r->out = (sn_pose *)must(size);
  sn_pose_init(r->out, size, &pd, NULL);
  r->ozz_out.assign(soa, ozz::math::SoaTransform::identity());
  std::vector<float> mw(n);
  for (int i = 0; i < kMaxLayers; i++) {
    r->layers[i] = (sn_pose *)must(size);
    sn_pose_init(r->layers[i], size, &pd, NULL);
    r->ozz_layers[i].assign(soa, ozz::math::SoaTransform::identity());
    r->ozz_masks[i].assign(soa, ozz::math::simd_float4::zero());
    for (int j = 0; j < n; j++) {
      float trs[10];
      random_trs(trs);
      sn_pose_set(r->layers[i], j, trs);
      for (int c = 0; c < 10; c++) *soa_at(r->ozz_layers[i].data(), j, c) = trs[c];
      mw[j] = rnd(0, 1);
      reinterpret_cast<float *>(r->ozz_masks[i].data())[j] = mw[j];
    }
    sn_mask_def md;
    sn_mask_def_init(&md);
    md.skeleton = r->skeleton;
    md.weights = mw.data();
    size_t msize = sn_mask_size(&md, NULL);
    r->masks[i] = (sn_mask *)must(msize);
    if (sn_mask_init(r->masks[i], msize, &md, NULL) != SN_OK) exit(1);
    r->weights[i] = rnd(0.2f, 1.0f);
  }
  r->ozz_models.resize(n);
  r->models = (float *)must(sizeof(float) * 16 * (size_t)n);
}

volatile float sink;  // outputs are summed into it so that no timed call is optimised away

struct Result {
  double sinew, ozz;  // ns per joint
};

// Best of kRounds alternating rounds of each body, ns per joint.
template <class A, class B>
Result race(int joints, A sinew_body, B ozz_body) {
  int reps = 1;
  double t0 = now();
  while (now() - t0 < kRoundSeconds) {  // calibrate on sinew, once
    for (int i = 0; i < reps; i++) sinew_body();
    reps *= 2;
    t0 = now();
    for (int i = 0; i < reps; i++) sinew_body();
    if (now() - t0 >= kRoundSeconds) break;
  }
  Result best = {1e30, 1e30};
  for (int round = 0; round < kRounds; round++) {
    for (int which = 0; which < 2; which++) {
      const bool s = (which + round) % 2 == 0;  // alternate who goes first
      double t = now();
      if (s)
        for (int i = 0; i < reps; i++) sinew_body();
      else
        for (int i = 0; i < reps; i++) ozz_body();
      t = (now() - t) / reps / joints * 1e9;
      double &b = s ? best.sinew : best.ozz;
      if (t < b) b = t;
    }
  }
  return best;
}

// The largest difference between the two libraries' outputs (rotations compared up to sign).
double blend_diff(const Rig &r) {
  double d = 0;
  for (int j = 0; j < r.joints; j++) {
    float trs[10], o[10], dot = 0;
    sn_pose_get(r.out, j, trs);
    for (int c = 0; c < 10; c++) o[c] = *soa_at(const_cast<ozz::math::SoaTransform *>(r.ozz_out.data()), j, c);
    for (int c = 3; c < 7; c++) dot += trs[c] * o[c];
    for (int c = 0; c < 10; c++) {
      double e = fabs(trs[c] - (c >= 3 && c < 7 && dot < 0 ? -o[c] : o[c]));
      if (e > d) d = e;
    }
  }
  return d;
}

double model_diff(const Rig &r) {
  double d = 0;
  for (int j = 0; j < r.joints; j++) {
    const float *o = reinterpret_cast<const float *>(&r.ozz_models[j]);
    for (int k = 0; k < 16; k++) {
      double e = fabs(r.models[16 * j + k] - o[k]);
      if (e > d) d = e;
    }
  }
  return d;
}

void report(const char *what, int joints, Result res, double diff) {
  printf("%-28s %6d %10.2f %10.2f %8.2f %12.1e\n", what, joints, res.sinew, res.ozz, res.sinew / res.ozz, diff);
  fflush(stdout);
}

std::string cpu_model() {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  std::string m = "unknown cpu";
  if (f == NULL) return m;
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      const char *p = strchr(line, ':');
      if (p != NULL) m = p + 2;
      if (!m.empty() && m.back() == '\n') m.pop_back();
      break;
    }
  fclose(f);
  return m;
}

}  // namespace

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : "";  // run only the cases whose name holds this
  char date[32];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&t));
  printf("sinew vs ozz-animation %s, one process, same data\n", OZZ_VERSION_STR);
  printf("machine: %s; compiler: gcc/g++ %s; flags: %s; date: %s\n", cpu_model().c_str(), __VERSION__, BENCH_FLAGS,
         date);
  printf("ns per joint, best of %d alternating rounds; ratio = sinew / ozz (below 1: sinew is faster);\n", kRounds);
  printf("diff = largest |sinew - ozz| of the outputs (ozz normalises rotations with an estimate)\n\n");
  printf("%-28s %6s %10s %10s %8s %12s\n", "case", "joints", "sinew", "ozz", "ratio", "diff");
  Rig rigs[2];
  build_rig(&rigs[0], false);
  build_rig(&rigs[1], true);
  for (int masked = 0; masked < 2; masked++)
    for (int k = 0; k < 3; k++)
      for (Rig &r : rigs) {
        const int n = 2 << k;
        char what[64];
        snprintf(what, sizeof what, "blend %d layers%s", n, masked ? ", masked" : "");
        if (strstr(what, only) == NULL) continue;
        sn_blend_layer bl[kMaxLayers];
        ozz::animation::BlendingJob::Layer ol[kMaxLayers];
        for (int i = 0; i < n; i++) {
          bl[i].pose = r.layers[i];
          bl[i].weight = r.weights[i];
          bl[i].mask = masked ? r.masks[i] : NULL;
          ol[i].weight = r.weights[i];
          ol[i].transform = ozz::make_span(r.ozz_layers[i]);
          if (masked) ol[i].joint_weights = ozz::make_span(r.ozz_masks[i]);
        }
        ozz::animation::BlendingJob job;
        job.threshold = SN_BLEND_THRESHOLD;
        job.layers = ozz::span<const ozz::animation::BlendingJob::Layer>(ol, n);
        job.rest_pose = r.ozz_skeleton->joint_rest_poses();
        job.output = ozz::make_span(r.ozz_out);
        sn_pose *out = r.out;
        float *o = sn_pose_channel(out, SN_POSE_QX);
        const float *oo = reinterpret_cast<const float *>(&r.ozz_out[1].rotation.x);
        Result res = race(
            r.joints,
            [&]() {
              sn_pose_blend(out, bl, n, SN_BLEND_THRESHOLD, NULL);
              sink = sink + o[5];
            },
            [&]() {
              if (!job.Run()) exit(1);
              sink = sink + oo[1];
            });
        report(what, r.joints, res, blend_diff(r));
      }
  for (Rig &r : rigs) {
    if (strstr("model-space matrices", only) == NULL) continue;
    ozz::animation::LocalToModelJob job;
    job.skeleton = r.ozz_skeleton.get();
    job.input = ozz::make_span(r.ozz_layers[0]);
    job.output = ozz::make_span(r.ozz_models);
    const sn_pose *in = r.layers[0];
    float *m = r.models;
    const float *om = reinterpret_cast<const float *>(&r.ozz_models[5]);
    Result res = race(
        r.joints,
        [&]() {
          sn_pose_to_model(in, m);
          sink = sink + m[16 * 5 + 12];
        },
        [&]() {
          if (!job.Run()) exit(1);
          sink = sink + om[12];
        });
    report("model-space matrices", r.joints, res, model_diff(r));
  }
  return 0;
}
