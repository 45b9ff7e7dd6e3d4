--- The FFI path's blend spaces: `space:weights(x1, ..., xd [, out])` for d up to 4 through the
-- core's function table (more go to the C binding), and the weights of `simple_directional`
-- spaces computed in Lua from the space's own wedges (the same bits as the core).
-- @module sinew.ffi.blendspace
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, getmetatable, select, rawset, ipairs, setmetatable = type, getmetatable, select, rawset, ipairs, setmetatable
local fin = args.fin
local caller, raise_as = errors.caller, errors.raise_as

--- Replaces the `weights` method of every blend-space class (see sinew.ffi for `ctx`).
function M.install(ctx)
  local T, C, try, register = ctx.T, ctx.C, ctx.try, ctx.register
  local SPACES = ctx.metatables["sinew.BlendSpace"]
  -- blend spaces: weights(x1, ..., xd [, out]) for d up to 4 (more go to the C binding)
  local weights_fn = T.blendspace_weights
  local input, wbuf, wcap = ffi.new("double[4]"), ffi.new("double[16]"), 16
  local calls = 0 -- weights calls begun: a call that sees it move was re-entered by a finaliser
  -- Functions that write entries 1 .. n of a table, made once per n: copy(out, w) from w[0 ..],
  -- fill(out, v) with v. Up to 64 entries store by store (a loop of a count the trace does not
  -- know costs LuaJIT a few ns an entry, straight stores next to nothing: manual/performance.md);
  -- made apart from the calls' path, since a function that makes a closure stops the trace.
  local copiers, fillers = {}, {}
  local function make_stores(cache, n, item) -- item: "w[%d]" copies, "w" fills
    local f
    if n <= 64 then
      local stores = {}
      for k = 1, n do stores[k] = ("rawset(o, %d, " .. item .. ")"):format(k, k - 1) end
      f = (loadstring or load)("local rawset = ...\nreturn function(o, w) " .. table.concat(stores, " ") .. " end",
        "=sinew.ffi weights stores")(rawset)
    elseif item == "w" then
      f = function(o, v) for k = 1, n do rawset(o, k, v) end end
    else
      f = function(o, w) for k = 1, n do rawset(o, k, w[k - 1]) end end
    end
    cache[n] = f
    return f
  end
  -- simple_directional in Lua (its weights are a few products once the wedge is found, and the
  -- call into the core cost more than that): the space's wedges (sn_blendspace_wedges_of, kept
  -- per space), read as src/core/blendspace_simple.c reads them, in the same order of operations, so
  -- the weights are the same bits. Spaces whose radii leave the quick range, and the input
  -- (0, 0), go to the core.
  local wedges_fn, MAX_COORD = T.blendspace_wedges, 1e150
  local wedges = setmetatable({}, { __mode = "k" })
  local function wedges_of(self) -- once per space, away from the calls' path
    local w = ffi.new("sn_blendspace_wedges")
    if wedges_fn(ffi.cast("const sn_lua_space *", self).bs, w, nil) ~= 0 or w.quick == 0 or w.ndir > 256 then
      w = false
    end
    wedges[self] = w
    return w
  end
  -- the core's binary search for ang[lo] <= t < ang[hi], written out for up to 256 directions
  -- (they are at least 2 degrees apart: at most 180): a loop inside the calls' trace would keep
  -- LuaJIT from compiling it
  local floor = math.floor
  local function halve(ang, t, lo, hi)
    if hi - lo > 1 then
      local mid = floor((lo + hi) / 2)
      if ang[mid] <= t then lo = mid else hi = mid end
    end
    return lo, hi
  end
  local function search(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo = halve(ang, t, lo, hi)
    return lo
  end
  local function directional(self, x, y, out)
    local wg = wedges[self]
    if wg == nil then wg = wedges_of(self) end
    if not wg or (x == 0 and y == 0) then return nil end
    if x < -MAX_COORD then x = -MAX_COORD elseif x > MAX_COORD then x = MAX_COORD end
    if y < -MAX_COORD then y = -MAX_COORD elseif y > MAX_COORD then y = MAX_COORD end
    local t -- sn_blendspace_pseudo_angle
    if y >= 0.0 then
      if x >= 0.0 then t = y / (x + y) else t = 1.0 - x / (y - x) end
    elseif x < 0.0 then
      t = -2.0 + y / (x + y)
    else
      t = -1.0 + x / (x - y)
    end
    local ang, ndir = wg.ang, wg.ndir
    local lo = ndir - 1
    if t >= ang[0] then lo = search(ang, t, 0, ndir) end
    local nx = lo + 1
    if nx == ndir then nx = 0 end
    local unit, fac = wg.unit, wg.fac
    local wa = (unit[2 * nx + 1] * x - unit[2 * nx] * y) * fac[2 * lo]
    local wb = (unit[2 * lo] * y - unit[2 * lo + 1] * x) * fac[2 * lo + 1]
    if not (wa > 0.0) then wa = 0.0 end -- luacheck: ignore 581 (NaN too, as the core)
    if not (wb > 0.0) then wb = 0.0 end -- luacheck: ignore 581
    local c = 1.0 - wa - wb
    if c < 0.0 then
      local sum = wa + wb
      wa, wb, c = wa / sum, wb / sum, 0.0
    end
    local n, ia, ib, centre = wg.count, wg.idx[lo] + 1, wg.idx[nx] + 1, wg.centre
    local fill = fillers[n] or make_stores(fillers, n, "w")
    if out == nil then out = {} end
    if centre >= 0 then
      fill(out, 0.0)
      rawset(out, ia, wa)
      rawset(out, ib, wb)
      rawset(out, centre + 1, c)
    else
      local e = c / n
      fill(out, e)
      rawset(out, ia, wa + e)
      rawset(out, ib, wb + e)
    end
    return out
  end

  for i, mt in ipairs(SPACES) do
    local c_weights = C.BlendSpace[i]
    local wedged = mt.__index.mode == "simple_directional"
    local weights
    weights = function(...)
      local self, x1, x2, x3, x4 = ...
      local nargs = select("#", ...) -- a constant in a compiled trace
      if nargs >= 2 and nargs <= 6 and type(self) == "userdata" and getmetatable(self) == mt then
        local out, d = select(nargs, ...), nargs - 1
        if type(out) == "table" or out == nil then d = d - 1 else out = nil end
        local ok = d >= 1 and d <= 4 and fin(x1)
        -- the table is made before the shared input and wbuf are filled: making it may run a
        -- finaliser that calls weights too
        if ok and out == nil then out = {} end
        calls = calls + 1
        local my_call = calls
        if ok then input[0] = x1 end
        if ok and d >= 2 then ok = fin(x2); input[1] = ok and x2 or 0 end
        if ok and d >= 3 then ok = fin(x3); input[2] = ok and x3 or 0 end
        if ok and d >= 4 then ok = fin(x4); input[3] = ok and x4 or 0 end
        if ok and wedged and d == 2 then
          local r = directional(self, x1, x2, out)
          if r then return r end
        end
        if ok then
          local n = weights_fn(self, input, d, wbuf, wcap)
          if n < -1 or (n >= 0 and not copiers[n]) then
            -- once per size: a larger wbuf (made, then installed, as the buffers above) or a new
            -- copier; these allocations may run a finaliser that uses input and wbuf, so both
            -- are filled again after them
            local need = n < -1 and -1 - n or n
            if need > wcap then
              local b = ffi.new("double[?]", need)
              if need > wcap then wbuf, wcap = b, need end
            end
            if not copiers[need] then make_stores(copiers, need, "w[%d]") end
            input[0], input[1], input[2], input[3] = x1, d >= 2 and x2 or 0, d >= 3 and x3 or 0, d >= 4 and x4 or 0
            n = weights_fn(self, input, d, wbuf, wcap)
          end
          if n >= 0 then
            copiers[n](out, wbuf)
            -- a compiled copy may collect while it grows `out`, and a finaliser may then have
            -- called weights and refilled wbuf: if any call began since this one, the C
            -- binding below does it again (it computes into the space's own memory)
            if calls == my_call then return out end
          end
        end
      end
      return raise_as(caller(), try(c_weights, ...))
    end
    mt.__index.weights = weights
    register(weights, c_weights)
  end
end

return M
