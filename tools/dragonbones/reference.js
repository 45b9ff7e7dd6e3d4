// Writes the DragonBones reference data that sinew's specs compare against (`make
// dragonbones-reference`): poses and events computed by the DragonBonesJS runtime (npm
// dragonbones-runtime@5.6.200 = DragonBones core 5.6.2, compiled with typescript@2.9.2, run
// headless by tools/dragonbones/runtime.js under node 20) for every armature and animation of
//   assets/dragonbones/<folder>/*_ske.json -> spec/dragonbones/reference/<folder>.json
//   spec/dragonbones/extra/<name>_ske.json -> spec/dragonbones/reference/extra/<name>.json
// Own code. Usage: node tools/dragonbones/reference.js [text]   (only the files whose path holds text)
//
// Format (one JSON object per _ske.json file; spec/dragonbones/reference/README.md says the same):
// {
//   "format": "sinew-dragonbones-reference 1",
//   "runtime": "5.6.2",                   DragonBones.VERSION of the runtime that computed it
//   "made_with": "npm dragonbones-runtime@5.6.200, typescript@2.9.2, node v20.20.2",
//   "source": "assets/dragonbones/mecha_1406/mecha_1406_ske.json",
//   "armatures": [{                       in the file's order
//     "name": "mecha_1406", "frame_rate": 24,
//     "bones": ["root", ...],             names in the file's order: every "bones" pose row follows it
//     "update_order": [...],              only when the runtime's getBones() order differs from the file's
//     "slots": ["...", ...],              names in the file's order: every "slots" pose row follows it
//     "setup": <pose>,                    right after buildArmature (its own advanceTime(0))
//     "animations": [{                    in the file's order
//       "name": "walk", "duration": 1.25, "frames": 30, "play_times": 0,   as the runtime parsed them
//       "scenarios": [<scenario>, ...] }] }] }
// <scenario>, a fresh armature each, on the runtime's WorldClock (nested armatures advance too):
//   {"kind": "play", "times": -1, "dt": 0.016666666666666666, "steps": 153, "events": [...],
//    "nested_events": [...], "poses": [<pose>, ...]}
//      armature.animation.play(name, times) (-1 = the file's playTimes, 0 = forever), then `steps`
//      times dragonBones.advanceTime(dt); poses at a subset of the steps (each names its step)
//   {"kind": "seek", "time": 0.2, "events": [...], "nested_events": [...], "poses": [<pose>]}
//      armature.animation.gotoAndStopByTime(name, time), then armature.advanceTime(0) (the clock
//      skips dt 0) and the event queue flushed; the pose has step 0
// events: [step, kind, name, owner] (+ {"ints", "floats", "strings"} when the event has data), in
//   the order the runtime dispatched them; kind is start, loopComplete, complete, frameEvent or
//   soundEvent (fadeIn/fadeOut kinds left out); name is the event's or sound's name, or the
//   animation's name for start/loopComplete/complete; owner the bone or slot the event names, or "".
//   Only the armature's own events; nested armatures' are in nested_events:
//   [step, armature name, kind, name, owner].
// <pose>: {"step": 12, "time": 0.2, "plays": 0, "completed": false,
//          "bones": [[a, b, c, d, tx, ty], ...], "slots": [[display, draw, r, g, b, a], ...],
//          "vertices": {"slot name": [x1, y1, x2, y2, ...], ...}}
//   time, plays, completed: the animation state's currentTime, currentPlayTimes, isCompleted (not
//     in "setup"); "animation": the name of the playing animation when another one took over
//     (an action key's gotoAndPlay).
//   bones: each bone's world matrix (armature space, y down: x' = a x + c y + tx, y' = b x + d y + ty);
//     a..d with 8 significant digits, tx, ty with 6 decimals.
//   slots: displayIndex (0-based, -1 = none), draw position (the runtime's zOrder + 1), colour
//     multipliers r, g, b, a (6 decimals), then the offsets r, g, b, a only when one is not 0.
//   vertices: mesh vertices in armature space (6 decimals) for the slots showing a mesh; present on
//     fewer poses than bones and slots (the size budget), absent when no slot shows a mesh.
// A number the runtime left non-finite would be written as null (none is, at this writing). A
// scenario in which the runtime threw would carry "error": its message (none does), and the run
// then ends with status 1.
"use strict";
const fs = require("fs");
const path = require("path");
const dbrt = require("./runtime.js");

const ROOT = dbrt.ROOT;
const OUT = path.join(ROOT, "spec", "dragonbones", "reference");
const MADE_WITH = `npm dragonbones-runtime@5.6.200, typescript@2.9.2, node ${process.version}`;

// ---- number formatting (the files' size) ----
let nonFinite = 0;
const check = (v) => { if (!Number.isFinite(v)) { nonFinite++; return null; } return v; };
const sig8 = (v) => (Number.isFinite(v) ? Number(v.toPrecision(8)) : check(v));
const dec6 = (v) => (Number.isFinite(v) ? Math.round(v * 1e6) / 1e6 + 0 : check(v)); // + 0: no -0

// ---- poses ----
// r: {arm, bones, slots} with bones and slots in the file's order; animation: the scenario's (the
// pose names the animation playing when another one took over, e.g. by an action key)
function pose(r, animation, step, withVertices) {
    const p = { step };
    const state = animation === null ? null : r.arm.animation.lastAnimationState;
    if (state) {
        if (state.name !== animation) p.animation = state.name;
        p.time = check(state.currentTime);
        p.plays = state.currentPlayTimes;
        p.completed = state.isCompleted;
    }
    p.bones = r.bones.map((b) => {
        const m = dbrt.matrix(b);
        return [sig8(m[0]), sig8(m[1]), sig8(m[2]), sig8(m[3]), dec6(m[4]), dec6(m[5])];
    });
    p.slots = r.slots.map((s) => {
        const st = dbrt.slotState(s);
        const row = [st.display, st.zOrder + 1].concat(st.multipliers.map(dec6));
        if (st.offsets.some((v) => v !== 0)) row.push(...st.offsets.map(dec6));
        return row;
    });
    if (withVertices) {
        const v = {};
        let any = false;
        for (const s of r.slots) {
            if (!dbrt.isMeshSlot(s)) continue;
            const out = [];
            dbrt.vertices(s, out);
            v[s.name] = out.map(dec6);
            any = true;
        }
        if (any) p.vertices = v;
    }
    return p;
}

// ---- which steps get a pose ----
// Poses: the first `first` steps, the two steps around the loop seams (the first two, the last
// one and the completion), `spread` steps spaced evenly, the last step. Vertices on fewer: the
// first step and the one after the first seam (when `vertices` >= 2), the spread ones and the
// last (when `vertices` >= 3), none (0). seams: "completion" keeps only the seam where the last
// play ends; "none" none. from: no pose before that time but the last. Big rigs get fewer poses (the size budget).
function chooseSteps(steps, dt, duration, plays, o) {
    const all = new Set([steps]), vert = new Set();
    for (let i = 1; i <= Math.min(o.first, steps); ++i) all.add(i);
    if (o.vertices >= 1) vert.add(steps);
    if (o.vertices >= 2) vert.add(1);
    if (duration > 0 && o.seams !== "none") {
        const lastSeam = Math.floor(steps * dt / duration + 1e-9);
        for (let k = 1; k <= lastSeam; ++k) {
            if (o.seams === "completion" ? k !== plays : !(k <= 2 || k === lastSeam || k === plays)) continue;
            const s = Math.floor(k * duration / dt + 1e-9);   // the last step at or before the seam
            for (const x of [s, s + 1]) if (x >= 1 && x <= steps) all.add(x);
            if (k === 1 && o.vertices >= 2 && s + 1 <= steps) vert.add(s + 1);
        }
    }
    for (let j = 1; j <= o.spread; ++j) {
        const x = Math.max(1, Math.round(j * steps / (o.spread + 1)));
        all.add(x);
        if (o.vertices >= 3) vert.add(x);
    }
    if (o.from !== undefined && duration > 0) {
        for (const x of all) if (x !== steps && x * dt < o.from - 1e-9) all.delete(x);
    }
    return { poses: all, vertices: vert };
}

// Steps for a play: every play plus 3 steps when playTimes > 0 and that is not more than 600
// steps (or the plays are at most 2), else a little more than two loops; at most 1200.
function playSteps(dt, duration, plays) {
    if (duration <= 0) return 3;
    const loops = plays > 0 && (plays <= 2 || Math.ceil(plays * duration / dt - 1e-9) <= 600) ? plays : 2;
    return Math.min(1200, Math.ceil(loops * duration / dt - 1e-9) + 3);
}

// ---- events ----
function splitEvents(world, arm, step, own, nested) {
    for (const e of world.takeEvents()) {
        if (e.armature === arm) {
            const row = [step, e.type, e.name, e.owner];
            if (e.data) row.push(e.data);
            own.push(row);
        } else {
            nested.push([step, e.armature.name, e.type, e.name, e.owner]);
        }
    }
}

// ---- one file ----
function reference(file, rel) {
    const json = JSON.parse(fs.readFileSync(file, "utf8"));
    const world = dbrt.world();
    const dataName = path.basename(file);
    const data = world.parse(json, dataName);
    const problems = [];
    const result = { format: "sinew-dragonbones-reference 1", runtime: dbrt.VERSION, made_with: MADE_WITH, source: rel, armatures: [] };

    for (const armJson of json.armature || []) {
        const armData = data.getArmature(armJson.name);
        if (!armData) { problems.push(`armature '${armJson.name}': not parsed by the runtime`); continue; }
        const boneNames = (armJson.bone || []).map((b) => b.name);
        const slotNames = (armJson.slot || []).map((s) => s.name);
        const fresh = () => {
            const arm = world.build(armJson.name, dataName);
            return {
                arm,
                bones: boneNames.map((n) => arm.getBone(n)),
                slots: slotNames.map((n) => arm.getSlot(n)),
            };
        };
        const probe = fresh();
        // a big rig (you_xin body: 68 bones, 96 slots, 330 mesh vertices) gets fewer poses
        const meshVertices = probe.slots.reduce((n, s) => n + (s && dbrt.isMeshSlot(s) ? s._meshData.parent.parent.parent.intArray[s._meshData.offset] : 0), 0);
        const big = boneNames.length + slotNames.length > 100 || meshVertices > 200;
        const armOut = { name: armJson.name, frame_rate: armData.frameRate, bones: boneNames };
        const order = probe.arm.getBones().map((b) => b.name);
        if (order.join("\n") !== boneNames.join("\n")) armOut.update_order = order;
        armOut.slots = slotNames;
        const missing = probe.bones.some((b) => !b) || probe.slots.some((s) => !s);
        if (missing) problems.push(`armature '${armJson.name}': a bone or slot of the file is missing in the runtime's armature`);
        armOut.setup = pose(probe, null, 0, true);
        world.remove(probe.arm);
        armOut.animations = [];

        for (const animJson of armJson.animation || []) {
            const anim = armData.animations[animJson.name];
            if (!anim) { problems.push(`animation '${armJson.name}.${animJson.name}': not parsed by the runtime`); continue; }
            const D = anim.duration, P = anim.playTimes;
            const animOut = { name: anim.name, duration: D, frames: anim.frameCount, play_times: P, scenarios: [] };
            const where = `${armJson.name}.${anim.name}`;

            const play = (times, dt, steps, o) => {
                const r = fresh();
                const sc = { kind: "play", times, dt, steps, events: [], nested_events: [], poses: [] };
                try {
                    world.play(r.arm, anim.name, times);
                    const plays = times < 0 ? P : times;
                    const pick = chooseSteps(steps, dt, D, plays, o);
                    for (let i = 1; i <= steps; ++i) {
                        world.step(dt);
                        splitEvents(world, r.arm, i, sc.events, sc.nested_events);
                        if (pick.poses.has(i)) sc.poses.push(pose(r, anim.name, i, pick.vertices.has(i)));
                    }
                } catch (err) {
                    problems.push(`${where} play(${times}) dt ${dt}: ${err.stack.split("\n").slice(0, 2).join(" ")}`);
                    sc.error = String(err.message);
                }
                world.remove(r.arm);
                animOut.scenarios.push(sc);
            };
            const seek = (t, withVertices) => {
                const r = fresh();
                const sc = { kind: "seek", time: t, events: [], nested_events: [], poses: [] };
                try {
                    world.seek(r.arm, anim.name, t);
                    splitEvents(world, r.arm, 0, sc.events, sc.nested_events);
                    sc.poses.push(pose(r, anim.name, 0, withVertices));
                } catch (err) {
                    problems.push(`${where} seek ${t}: ${err.stack.split("\n").slice(0, 2).join(" ")}`);
                    sc.error = String(err.message);
                }
                world.remove(r.arm);
                animOut.scenarios.push(sc);
            };

            play(-1, 1 / 60, playSteps(1 / 60, D, P), big ? { first: 2, spread: 0, vertices: 2 } : { first: 3, spread: 3, vertices: 3 });
            play(-1, 1 / 30, playSteps(1 / 30, D, P), { first: 2, spread: 0, vertices: big ? 0 : 1 });
            play(-1, 0.25, playSteps(0.25, D, P), { first: 1, spread: 0, vertices: big ? 0 : 1 });
            // times 0 and 2: the same poses as the runs above (at the same dt) until the first of
            // the two ends its plays: poses only from there on (and the last step)
            const ends = (T) => Math.min(T > 0 ? T : Infinity, P > 0 ? P : Infinity) * D;
            play(0, 1 / 30, D > 0 ? Math.min(1200, Math.ceil(D * 30 - 1e-9) + 3) : 3,
                { first: 1, spread: 0, vertices: big ? 0 : 1, from: ends(0) });
            play(2, 0.25, D > 0 ? Math.min(1200, Math.ceil(2 * D / 0.25 - 1e-9) + 3) : 3,
                { first: 0, spread: 0, vertices: big ? 0 : 1, seams: "completion", from: ends(2) });
            const times = seekTimes(D, anim.frameCount, armData.frameRate);
            // big rigs: vertices at 0 and at the frame boundary only
            times.forEach((t, i) => seek(t, !big || i === 0 || i === 2));
            armOut.animations.push(animOut);
        }
        result.armatures.push(armOut);
    }
    return { result, problems };
}

// 0, an arbitrary time inside, a frame boundary that is a short decimal (0.2 at 30 fps, 0.125
// at 24: t * frameRate rounds differently from the step sums), the duration, beyond it.
function seekTimes(duration, frames, frameRate) {
    if (duration <= 0) return [0, 0.5];
    const r3 = (v) => Math.round(v * 1000) / 1000;
    const times = [0, r3(0.37 * duration)];
    let boundary = null;
    for (let k = 1; k < frames; ++k) {
        const t = k / frameRate;
        if (Math.abs(t * 1000 - Math.round(t * 1000)) > 1e-7) continue;
        if (boundary === null || Math.abs(t - duration / 3) < Math.abs(boundary - duration / 3)) boundary = r3(t);
    }
    if (boundary !== null) times.push(boundary);
    times.push(duration, r3(duration + 0.5));
    return [...new Set(times)];
}

// ---- writing: compact JSON, one pose row list or event per line ----
function emit(v, indent) {
    const flat = JSON.stringify(v);
    if (flat === undefined) return "null";
    if (v === null || typeof v !== "object" || flat.length <= 100) return flat;
    const inner = indent + " ";
    if (Array.isArray(v)) {
        const simple = v.every((x) => x === null || typeof x !== "object" ||
            (Array.isArray(x) && x.every((y) => y === null || typeof y !== "object")));
        if (simple) return flat;
        return "[\n" + v.map((x) => inner + emit(x, inner)).join(",\n") + "\n" + indent + "]";
    }
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    return "{\n" + keys.map((k) => inner + JSON.stringify(k) + ": " + emit(v[k], inner)).join(",\n") + "\n" + indent + "}";
}

function inputs() {
    const list = [];
    const assets = path.join(ROOT, "assets", "dragonbones");
    for (const dir of fs.readdirSync(assets).sort()) {
        const d = path.join(assets, dir);
        if (!fs.statSync(d).isDirectory()) continue;
        for (const f of fs.readdirSync(d).sort()) {
            if (f.endsWith("_ske.json")) list.push({ file: path.join(d, f), out: path.join(OUT, dir + ".json") });
        }
    }
    const extra = path.join(ROOT, "spec", "dragonbones", "extra");
    if (fs.existsSync(extra)) {
        for (const f of fs.readdirSync(extra).sort()) {
            if (f.endsWith("_ske.json")) {
                list.push({ file: path.join(extra, f), out: path.join(OUT, "extra", f.replace(/_ske\.json$/, ".json")) });
            }
        }
    }
    return list;
}

function main() {
    const only = process.argv[2] || "";
    const t0 = process.hrtime.bigint();
    let total = 0, failed = 0;
    for (const { file, out } of inputs()) {
        const rel = path.relative(ROOT, file);
        if (only && !rel.includes(only)) continue;
        const t1 = process.hrtime.bigint();
        nonFinite = 0;
        const { result, problems } = reference(file, rel);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        const text = emit(result, "") + "\n";
        fs.writeFileSync(out, text);
        total += text.length;
        const ms = Number(process.hrtime.bigint() - t1) / 1e6;
        const counts = result.armatures.reduce((n, a) => n + a.animations.length, 0);
        console.log(`dbref: ${path.relative(ROOT, out)}: ${result.armatures.length} armatures, ${counts} animations, ` +
            `${(text.length / 1024).toFixed(1)} KB, ${ms.toFixed(0)} ms` + (nonFinite ? `, ${nonFinite} non-finite numbers written as null` : ""));
        for (const p of problems) { console.log(`dbref:   problem: ${p}`); failed++; }
    }
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`dbref: ${(total / 1024 / 1024).toFixed(2)} MB in all, ${s.toFixed(1)} s (DragonBones ${dbrt.VERSION}, ${MADE_WITH})`);
    if (failed) { console.log(`dbref: ${failed} problems (above)`); process.exitCode = 1; }
}

main();
