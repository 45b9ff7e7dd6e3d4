// Headless DragonBonesJS runtime for sinew's dev tools (reference data, JS bench). Own code.
//
// Loads the DragonBones core compiled by tools/dragonbones/install.sh (npm
// dragonbones-runtime@5.6.200, whose DragonBones/src is the 5.6.2 core, compiled with
// typescript@2.9.2) from build/dbref/dragonBones.js, or from $DBREF_JS, and supplies the few
// engine classes the core leaves abstract: a texture atlas, a slot, an armature proxy (event
// sink) and a factory. Nothing is drawn: the stub slot keeps no display state, except that with
// { skin: true } it skins its mesh into a preallocated Float32Array (what an engine's slot does
// in _updateMesh; the bench needs it so that JS does the work sinew does).
//
//   const dbrt = require("./runtime.js");
//   const w = dbrt.world();                      // one DragonBones instance (clock + event queue)
//   w.parse(json, "name");                       // DragonBonesData from a parsed _ske.json
//   const arm = w.build("armature", "name");     // on w's clock; its setup pose is computed
//   w.play(arm, "walk", -1);  w.step(1 / 60);    // -1 = the file's playTimes, 0 = forever
//   w.seek(arm, "walk", 0.2);                    // gotoAndStopByTime + arm.advanceTime(0)
//   w.takeEvents();                              // [{armature, type, name, owner, data}]
//   dbrt.matrix(bone), dbrt.slotState(slot), dbrt.vertices(slot, out)
//   w.remove(arm);
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const ROOT = path.resolve(__dirname, "..", "..");
const JS = process.env.DBREF_JS || path.join(ROOT, "build", "dbref", "dragonBones.js");
if (!fs.existsSync(JS)) {
    throw new Error(`${JS} is missing: run sh tools/dragonbones/install.sh first`);
}
// The compiled core is one ES5 script declaring the global namespace `dragonBones`.
vm.runInThisContext(fs.readFileSync(JS, "utf8") + "\n;globalThis.dragonBones = dragonBones;", { filename: JS });
const db = globalThis.dragonBones;
const VERSION = db.DragonBones.VERSION;

// Event kinds that say something about fading between animations: not rig events.
const FADE = new Set([db.EventObject.FADE_IN, db.EventObject.FADE_IN_COMPLETE,
    db.EventObject.FADE_OUT, db.EventObject.FADE_OUT_COMPLETE]);

// BaseObject pools instances by the class's toString(), hence the static toString on each.
class StubTexture extends db.TextureData {
    static toString() { return "[class sinew.StubTexture]"; }
}
class StubAtlas extends db.TextureAtlasData {
    static toString() { return "[class sinew.StubAtlas]"; }
    createTexture() { return db.BaseObject.borrowObject(StubTexture); }
}

// The proxy is both the armature's display and its event dispatcher. The runtime asks
// hasDBEventListener before it buffers an event, so every kind is "listened to"; the events
// land in the world's log.
class Proxy {
    constructor(world) { this.world = world; this.armature = null; }
    dbInit(armature) { this.armature = armature; }
    dbClear() { this.armature = null; }
    dbUpdate() {}
    dispose() {}
    hasDBEventListener() { return true; }
    addDBEventListener() {}
    removeDBEventListener() {}
    dispatchDBEvent(type, e) {
        // sound events go to the armature's proxy and again to the world's event manager: the
        // manager's copy is dropped
        if (this === this.world.manager || FADE.has(type)) return;
        this.world.events.push(eventRecord(type, e));
    }
    get animation() { return this.armature.animation; }
}

function eventRecord(type, e) {
    const frameOrSound = type === db.EventObject.FRAME_EVENT || type === db.EventObject.SOUND_EVENT;
    const rec = {
        armature: e.armature,
        type,
        // a key's event or sound name; for start/loopComplete/complete the animation's name
        name: frameOrSound ? e.name : (e.animationState ? e.animationState.name : ""),
        owner: e.bone ? e.bone.name : (e.slot ? e.slot.name : ""),
        data: null,
    };
    const d = e.data;
    if (d && (d.ints.length || d.floats.length || d.strings.length)) {
        rec.data = { ints: d.ints.slice(), floats: d.floats.slice(), strings: d.strings.slice() };
    }
    return rec;
}

// The byte layout of a mesh in the data's intArray (BinaryOffset, a const enum in the sources,
// hence absent from the compiled script): core/DragonBones.ts.
const MESH_VERTEX_COUNT = 0, MESH_FLOAT_OFFSET = 2, WEIGHT_FLOAT_OFFSET = 1, WEIGHT_BONE_INDICES = 2;
const u16 = (v) => (v < 0 ? v + 65536 : v);   // offsets above 32767 wrap in the Int16Array

// Mesh vertices in armature space for a slot showing a mesh, written into out (an array or a
// typed array of 2 * vertex count); returns the vertex count, 0 when the slot shows no mesh.
// Weighted: sum over the vertex's bones of w * M_bone * (bind + deform), the formula of the
// engines' _updateMesh (PixiSlot etc.), with the deform indexed per weight entry. Unweighted:
// the slot's world matrix times (vertex + deform).
function vertices(slot, out) {
    const md = slot._meshData;
    if (md === null || slot._display !== slot._meshDisplay) return 0;
    const data = md.parent.parent.parent, ia = data.intArray, fa = data.floatArray;
    const n = ia[md.offset + MESH_VERTEX_COUNT];
    const deform = slot._deformVertices;
    const hasDeform = deform.length > 0 && md.inheritDeform;
    if (md.weight !== null) {
        const bones = slot._meshBones;
        let iB = md.weight.offset + WEIGHT_BONE_INDICES + md.weight.bones.length;
        let iV = u16(ia[md.weight.offset + WEIGHT_FLOAT_OFFSET]);
        for (let i = 0, iF = 0, o = 0; i < n; ++i) {
            const count = ia[iB++];
            let x = 0, y = 0;
            for (let j = 0; j < count; ++j) {
                const bone = bones[ia[iB++]], w = fa[iV++];
                let xl = fa[iV++], yl = fa[iV++];
                if (hasDeform) { xl += deform[iF++]; yl += deform[iF++]; }
                if (bone !== null) {
                    const m = bone.globalTransformMatrix;
                    x += (m.a * xl + m.c * yl + m.tx) * w;
                    y += (m.b * xl + m.d * yl + m.ty) * w;
                }
            }
            out[o++] = x; out[o++] = y;
        }
    } else {
        const vo = u16(ia[md.offset + MESH_FLOAT_OFFSET]), m = slot.globalTransformMatrix;
        for (let i = 0; i < 2 * n; i += 2) {
            const x = fa[vo + i] + (hasDeform ? deform[i] : 0), y = fa[vo + i + 1] + (hasDeform ? deform[i + 1] : 0);
            out[i] = m.a * x + m.c * y + m.tx;
            out[i + 1] = m.b * x + m.d * y + m.ty;
        }
    }
    return n;
}

// The stub slot: every display hook is a no-op; _onUpdateDisplay picks the object to "render".
class StubSlot extends db.Slot {
    static toString() { return "[class sinew.StubSlot]"; }
    _initDisplay() {}
    _disposeDisplay() {}
    _onUpdateDisplay() { this._renderDisplay = this._display || this._rawDisplay; }
    _addDisplay() {}
    _replaceDisplay() {}
    _removeDisplay() {}
    _updateZOrder() {}
    _updateVisible() {}
    _updateBlendMode() {}
    _updateColor() {}
    _updateFrame() {}
    _updateMesh() {}
    _updateGlueMesh() {}
    _updateTransform() {}
    _identityTransform() {}
}

// The bench's slot: _updateMesh skins like an engine's slot does, into a Float32Array made the
// first time a mesh is shown (made again only for a larger mesh), so that steady state allocates
// nothing. The runtime calls _updateMesh when the mesh or one of its bones
// changed; skinned counts the calls.
class SkinningSlot extends StubSlot {
    static toString() { return "[class sinew.SkinningSlot]"; }
    _onClear() { super._onClear(); this.skinned = 0; this.buffer = null; }
    _updateMesh() {
        const md = this._meshData;
        const need = 2 * md.parent.parent.parent.intArray[md.offset + MESH_VERTEX_COUNT];
        if (this.buffer === null || this.buffer.length < need) this.buffer = new Float32Array(need);
        if (md.weight !== null) {
            vertices(this, this.buffer);
        } else {
            // unweighted: slot space (the display's transform places it), as the engines do
            const data = md.parent.parent.parent, ia = data.intArray, fa = data.floatArray;
            const n = ia[md.offset + MESH_VERTEX_COUNT], vo = u16(ia[md.offset + MESH_FLOAT_OFFSET]);
            const deform = this._deformVertices, hasDeform = deform.length > 0 && md.inheritDeform;
            for (let i = 0; i < 2 * n; ++i) this.buffer[i] = fa[vo + i] + (hasDeform ? deform[i] : 0);
        }
        this.skinned++;
    }
}

class StubFactory extends db.BaseFactory {
    constructor(world, slotClass) { super(); this.world = world; this.slotClass = slotClass; }
    _buildTextureAtlasData(textureAtlasData) { return textureAtlasData || db.BaseObject.borrowObject(StubAtlas); }
    _buildArmature(dataPackage) {
        const armature = db.BaseObject.borrowObject(db.Armature), proxy = new Proxy(this.world);
        armature.init(dataPackage.armature, proxy, proxy, this._dragonBones);
        return armature;
    }
    _buildSlot(dataPackage, slotData, displays) {
        const slot = db.BaseObject.borrowObject(this.slotClass);
        // the raw and the mesh display must be two distinct objects (the slot compares them)
        slot.init(slotData, displays, {}, {});
        return slot;
    }
}

// One DragonBones instance: its WorldClock advances the armatures added to it and their nested
// armatures; its queue holds the events until the end of each step.
class World {
    constructor(options = {}) {
        this.events = [];
        this.manager = new Proxy(this);
        this.factory = new StubFactory(this, options.skin ? SkinningSlot : StubSlot);
        const info = console.info;
        console.info = () => {};             // the constructor prints a banner
        try { this.dragonBones = new db.DragonBones(this.manager); } finally { console.info = info; }
        this.factory._dragonBones = this.dragonBones;
    }
    parse(json, name) {
        const data = this.factory.parseDragonBonesData(json, name);
        if (data === null) throw new Error(`the runtime could not parse '${name}'`);
        return data;
    }
    // Builds armatureName, adds it to the clock and drops the events of its setup update.
    build(armatureName, dataName) {
        const armature = this.factory.buildArmature(armatureName, dataName);
        if (armature === null) throw new Error(`no armature '${armatureName}' in '${dataName}'`);
        this.dragonBones.clock.add(armature);
        this.dragonBones.advanceTime(0);      // flushes what the build queued (the clock skips dt 0)
        this.events.length = 0;
        return armature;
    }
    play(armature, animation, times) {
        const state = armature.animation.play(animation, times);
        if (state === null) throw new Error(`no animation '${animation}' in '${armature.name}'`);
        return state;
    }
    // One frame: the clock (armatures, then nested ones), then the queued events.
    step(dt) { this.dragonBones.advanceTime(dt); }
    // gotoAndStopByTime, then one update of the armature alone at dt 0 (WorldClock.advanceTime(0)
    // returns early, so the clock cannot do it), then the queued events.
    seek(armature, animation, time) {
        const state = armature.animation.gotoAndStopByTime(animation, time);
        if (state === null) throw new Error(`no animation '${animation}' in '${armature.name}'`);
        armature.advanceTime(0);
        this.dragonBones.advanceTime(0);
        return state;
    }
    takeEvents() { return this.events.splice(0); }
    remove(armature) {
        this.dragonBones.clock.remove(armature);
        armature.dispose();
        this.dragonBones.advanceTime(0);      // returns the disposed objects to their pools
        this.events.length = 0;
    }
}

// A bone's or slot's world matrix as [a, b, c, d, tx, ty] (armature space, y down).
function matrix(object) {
    const m = object.globalTransformMatrix;
    return [m.a, m.b, m.c, m.d, m.tx, m.ty];
}

// A slot's display index (-1 = none), draw position (0-based z order), colour multipliers
// r, g, b, a (1 = unchanged) and offsets r, g, b, a (-255 .. 255).
function slotState(slot) {
    const c = slot._colorTransform;
    return {
        display: slot.displayIndex,
        zOrder: slot._zOrder,
        multipliers: [c.redMultiplier, c.greenMultiplier, c.blueMultiplier, c.alphaMultiplier],
        offsets: [c.redOffset, c.greenOffset, c.blueOffset, c.alphaOffset],
    };
}

module.exports = {
    db, VERSION, JS, ROOT,
    world: (options) => new World(options),
    vertices, matrix, slotState,
    isMeshSlot: (slot) => slot._meshData !== null && slot._display === slot._meshDisplay,
};
