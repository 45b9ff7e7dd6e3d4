// node spec/support/dragonbones_dump.js <ske.json>: what the DragonBones 5.6.2 parser stores for a
// file (frame positions, tween types, curve samples, key values, colours, deform vertices, z-orders,
// action items, mesh weights and bind vertices), read back out of its typed arrays, as JSON, for
// the conformance check of spec/dragonbones_import_spec.lua. SINEW_DB_JS = the runtime compiled
// from dragonbones-runtime@5.6.200's DragonBones/src (tsc 2.9.2: one file, namespace dragonBones).
const fs = require("fs"), vm = require("vm");
vm.runInThisContext(fs.readFileSync(process.env.SINEW_DB_JS, "utf8") + "\n;globalThis.dragonBones = dragonBones;");
const db = globalThis.dragonBones; console.info = () => {}; console.warn = () => {};
const raw = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const data = db.ObjectDataParser.getInstance().parseDragonBonesData(raw, 1);
const IA = data.intArray, FA = data.floatArray, FIA = data.frameIntArray, FFA = data.frameFloatArray,
  FRA = data.frameArray, TA = data.timelineArray;
const out = {};
function keys(anim, tl, nvalues, kind) {
  const off = tl.offset, n = TA[off + 2], res = [];
  for (let k = 0; k < n; ++k) {
    const fo = anim.frameOffset + TA[off + 5 + k];
    const key = { frame: FRA[fo] };
    if (kind === "tween") {
      key.tween = FRA[fo + 1];
      if (key.tween === 2) { const c = FRA[fo + 2]; key.samples = []; for (let i = 0; i < c; ++i) key.samples.push(FRA[fo + 3 + i]); }
      else if (key.tween >= 3) key.amount = FRA[fo + 2];
    }
    res.push(key);
  }
  return res;
}
for (const armName of data.armatureNames) {
  const arm = data.getArmature(armName);
  const A = out[armName] = { animations: {}, meshes: {}, bones: {}, slots: {}, ik: {}, displays: {} };
  for (const b of arm.sortedBones) { const t = b.transform;
    A.bones[b.name] = [t.x, t.y, t.rotation, t.skew, t.scaleX, t.scaleY, b.length, b.parent ? b.parent.name : null,
      b.inheritTranslation, b.inheritRotation, b.inheritScale, b.inheritReflection]; }
  for (const sl of arm.sortedSlots) { const c = sl.color;
    A.slots[sl.name] = [sl.displayIndex, sl.parent.name, c.alphaMultiplier, c.redMultiplier, c.greenMultiplier,
      c.blueMultiplier, c.alphaOffset, c.redOffset, c.greenOffset, c.blueOffset]; }
  for (const k in arm.constraints) { const c = arm.constraints[k];
    A.ik[k] = [c.root.name, c.bone ? c.bone.name : null, c.target.name, c.bendPositive, c.weight]; }
  for (const skinName in arm.skins) { const skin = arm.skins[skinName];
    for (const slotName in skin.displays) { skin.displays[slotName].forEach((d, i) => { if (!d) return; const t = d.transform;
      A.displays[skinName + "/" + slotName + "/" + i] = [d.type, d.name, d.path, t.x, t.y, t.rotation, t.skew, t.scaleX,
        t.scaleY, d.pivot ? d.pivot.x : null, d.pivot ? d.pivot.y : null]; }); } }
  for (const skinName in arm.skins) {
    const skin = arm.skins[skinName];
    for (const slotName in skin.displays) {
      skin.displays[slotName].forEach((d, i) => {
        if (!d || d.type !== 2) return;
        const m = { vertices: [], weights: null };
        const n = IA[d.offset], vo = IA[d.offset + 2];
        for (let j = 0; j < 2 * n; ++j) m.vertices.push(FA[vo + j]);
        if (d.weight) {
          const w = d.weight, nb = w.bones.length; let iB = w.offset + 2 + nb, iV = IA[w.offset + 1];
          m.weights = [];
          for (let v = 0; v < n; ++v) { const c = IA[iB++]; m.weights.push(c);
            for (let j = 0; j < c; ++j) { const bi = IA[iB++]; m.weights.push(arm.sortedBones.indexOf(w.bones[bi]) >= 0 ? w.bones[bi].name : null, FA[iV++], FA[iV++], FA[iV++]); } }
        }
        A.meshes[skinName + "/" + slotName + "/" + i] = m;
      });
    }
  }
  for (const animName of arm.animationNames) {
    const anim = arm.animations[animName];
    const R = A.animations[animName] = { frameCount: anim.frameCount, playTimes: anim.playTimes, bones: {}, slots: {}, ffd: {}, actions: null, zorder: null };
    for (const bn in anim.boneTimelines) {
      R.bones[bn] = anim.boneTimelines[bn].map(tl => {
        const nv = tl.type === 10 ? 6 : 2, ks = keys(anim, tl, nv, "tween");
        const vo = anim.frameFloatOffset + TA[tl.offset + 4];
        ks.forEach((k, i) => { k.values = Array.from(FFA.slice(vo + i * nv, vo + (i + 1) * nv)); });
        return { type: tl.type, keys: ks };
      });
    }
    for (const sn in anim.slotTimelines) {
      R.slots[sn] = anim.slotTimelines[sn].map(tl => {
        if (tl.type === 20) { const ks = keys(anim, tl, 0, "plain");
          ks.forEach((k, i) => { k.value = FRA[anim.frameOffset + TA[tl.offset + 5 + i] + 1]; }); return { type: 20, keys: ks }; }
        if (tl.type === 21) { const ks = keys(anim, tl, 0, "tween"); const io = anim.frameIntOffset + TA[tl.offset + 4];
          ks.forEach((k, i) => { const c = FIA[io + i]; k.color = Array.from(IA.slice(c, c + 8)); }); return { type: 21, keys: ks }; }
        // ffd
        const ks = keys(anim, tl, 0, "tween");
        const fio = anim.frameIntOffset + TA[tl.offset + 3];
        const count = FIA[fio + 1], fo = anim.frameFloatOffset + FIA[fio + 4];
        ks.forEach((k, i) => { k.vertices = Array.from(FFA.slice(fo + i * count, fo + (i + 1) * count)); });
        return { type: 22, keys: ks };
      });
    }
    R.ik = {};
    for (const cn in anim.constraintTimelines) {
      R.ik[cn] = anim.constraintTimelines[cn].map(tl => { const ks = keys(anim, tl, 0, "tween");
        const io = anim.frameIntOffset + TA[tl.offset + 4];
        ks.forEach((k, i) => { k.bend = FIA[io + 2 * i]; k.weight = FIA[io + 2 * i + 1]; }); return ks; });
    }
    if (anim.zOrderTimeline) {
      const tl = anim.zOrderTimeline, ks = keys(anim, tl, 0, "plain");
      ks.forEach((k, i) => { const fo = anim.frameOffset + TA[tl.offset + 5 + i]; const n = FRA[fo + 1];
        k.order = n ? Array.from(FRA.slice(fo + 2, fo + 2 + n)) : null; });
      R.zorder = ks;
    }
    if (anim.actionTimeline) {
      const tl = anim.actionTimeline, ks = keys(anim, tl, 0, "plain");
      ks.forEach((k, i) => { const fo = anim.frameOffset + TA[tl.offset + 5 + i]; const n = FRA[fo + 1]; k.items = [];
        for (let j = 0; j < n; ++j) { const a = arm.actions[FRA[fo + 2 + j]];
          k.items.push({ type: a.type, name: a.name, bone: a.bone ? a.bone.name : null, slot: a.slot ? a.slot.name : null,
            ints: a.data ? a.data.ints : [], floats: a.data ? a.data.floats : [], strings: a.data ? a.data.strings : [] }); } });
      R.actions = ks;
    }
  }
}
process.stdout.write(JSON.stringify(out));
