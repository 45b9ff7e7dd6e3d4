// The DragonBonesJS side of the 2-D rig benchmark: what the reference runtime (DragonBones 5.6.2
// from npm dragonbones-runtime@5.6.200, headless, tools/dragonbones/runtime.js) costs per rig per
// frame, for sinew's DragonBones rigs to be compared with.
//
// Per case: 100 armatures of one sample on one WorldClock, each playing the animation in a loop
// (play(name, 0): idle plays once in the file, and a finished animation costs nothing), stepped
// by dragonBones.advanceTime(1/60): 300 steps of warm-up, then the best of 5 rounds of 600 steps
// timed with process.hrtime.bigint (wall; the CPU time of the process, process.cpuUsage, beside it,
// best round of its own: what the Lua benches' os.clock measures). The slots skin their meshes in _updateMesh (weighted: into a
// Float32Array per slot made once, armature space; see runtime.js SkinningSlot), so that JS does
// the work sinew does; the runtime calls it when a mesh's bones moved, i.e. every frame here.
//
// Needs `sh tools/dragonbones/install.sh` first. Run: node bench/dragonbones_js.js
// Prints a line per case, then `JSON:{...}` on one line for a Lua bench to read.
"use strict";
const fs = require("fs");
const path = require("path");
const dbrt = require("../tools/dragonbones/runtime.js");

const RIGS = 100, WARMUP = 300, STEPS = 600, ROUNDS = 5, DT = 1 / 60;
const CASES = [
    { sample: "you_xin_body", file: "body_ske.json", armature: "body", animation: "idle" },
    { sample: "mecha_1406", file: "mecha_1406_ske.json", armature: "mecha_1406", animation: "walk" },
];

function run(c) {
    const world = dbrt.world({ skin: true });
    const file = path.join(dbrt.ROOT, "assets", "dragonbones", c.sample, c.file);
    world.parse(JSON.parse(fs.readFileSync(file, "utf8")), c.sample);
    const arms = [];
    for (let i = 0; i < RIGS; ++i) {
        const arm = world.build(c.armature, c.sample);
        const names = arm.animation.animationNames;
        world.play(arm, names.includes(c.animation) ? c.animation : names[0], 0);
        arms.push(arm);
    }
    const meshSlots = arms[0].getSlots().filter((s) => s._meshData !== null);
    const skinned = () => arms.reduce((n, a) => n + a.getSlots().reduce((m, s) => m + s.skinned, 0), 0);

    for (let i = 0; i < WARMUP; ++i) world.step(DT);
    world.takeEvents();
    let best = Infinity, bestCpu = Infinity;
    const skins0 = skinned();
    for (let r = 0; r < ROUNDS; ++r) {
        const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
        for (let i = 0; i < STEPS; ++i) world.step(DT);
        const ns = Number(process.hrtime.bigint() - t0), cpu = process.cpuUsage(c0);
        best = Math.min(best, ns / 1e3 / STEPS / RIGS);
        bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / STEPS / RIGS);
        world.events.length = 0;          // the loopComplete events, between rounds
    }
    const skinsPerFrame = (skinned() - skins0) / (ROUNDS * STEPS * RIGS);
    const result = {
        sample: c.sample, armature: c.armature, animation: arms[0].animation.lastAnimationName,
        rigs: RIGS, us_per_rig_frame: Number(best.toFixed(3)), cpu_us_per_rig_frame: Number(bestCpu.toFixed(3)),
        bones: arms[0].getBones().length, slots: arms[0].getSlots().length,
        constraints: arms[0]._constraints.length, mesh_slots: meshSlots.length,
        meshes_skinned_per_rig_frame: Number(skinsPerFrame.toFixed(2)),
    };
    for (const a of arms) world.remove(a);
    return result;
}

const results = CASES.map(run);
for (const r of results) {
    console.log(`dragonbones js: ${r.sample} ${r.animation}: ${r.us_per_rig_frame.toFixed(1)} us per rig per frame ` +
        `(CPU time ${r.cpu_us_per_rig_frame.toFixed(1)}; ${r.rigs} rigs; ${r.bones} bones, ${r.slots} slots, ${r.constraints} IK, ` +
        `${r.meshes_skinned_per_rig_frame} meshes skinned per frame)`);
}
console.log("JSON:" + JSON.stringify({
    runtime: dbrt.VERSION, node: process.version, dt: DT, warmup: WARMUP, steps: STEPS, rounds: ROUNDS,
    cases: results,
}));
