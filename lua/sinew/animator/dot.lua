--- The state machines of an animator definition as Graphviz DOT text: one cluster per layer,
-- states as boxes (the entry state bold, blend trees noted with their mode), transitions as
-- arrows labelled with their conditions, exit time and duration. `sinew.animator.dot(def [,
-- resources])`; render with `dot -Tsvg`.
-- @module sinew.animator.dot
local Definition = require "sinew.animator.definition"
local Fault = require "sinew.fault"

local M = {}

local op_names = { ">", "<", ">=", "<=", "==", "~=" }

local function quote(s)
  return '"' .. tostring(s):gsub('[\\"]', "\\%0"):gsub("\n", "\\n") .. '"'
end

local function label_of(t)
  local parts = {}
  for _, c in ipairs(t.conditions) do
    if c.op == 0 then parts[#parts + 1] = c.name
    else parts[#parts + 1] = ("%s %s %s"):format(c.name, op_names[c.op], tostring(c.value)) end
  end
  if t.exit_time then parts[#parts + 1] = ("exit %g"):format(t.exit_time) end
  parts[#parts + 1] = ("%gs"):format(t.duration) .. (t.inertialize and " inertialize" or "")
  return table.concat(parts, "\n")
end

local function motion_label(m)
  if m.kind == "clip" then return ("clip %.3gs"):format(m.duration) end
  if m.kind == "machine" then return ("state machine (%d states)"):format(#m.order) end
  return ("%s blend (%d)"):format(m.mode, #m.children)
end

-- a layer's state machine, the body of its cluster (number i)
local function machine(out, i, L)
  out[#out + 1] = ("    label=%s; labelloc=b;"):format(quote(("%s (%s)"):format(L.name, L.mode)))
  local function id(name) return quote(("%d:%s"):format(i, name)) end
  for _, name in ipairs(L.order) do
    local s = L.states[name]
    out[#out + 1] = ("    %s [label=%s%s];"):format(id(name), quote(name .. "\n" .. motion_label(s.motion)),
      name == L.entry and ", penwidth=2" or "")
  end
  local any = false
  for _, t in ipairs(L.transitions) do
    if t.from == "any" and not any then
      any = true
      out[#out + 1] = ("    %s [label=\"any\", shape=plaintext];"):format(id("any"))
    end
    out[#out + 1] = ("    %s -> %s [label=%s];"):format(id(t.from), id(t.to), quote(label_of(t)))
  end
end

-- a synced layer: the states of the layer `src` it follows, with its own motions, dashed; the
-- transitions are the other layer's
local function synced_layer(out, i, L, src)
  out[#out + 1] = ("    label=%s; labelloc=b; style=dashed;"):format(
    quote(("%s (%s, synced to %s)"):format(L.name, L.mode, src.name)))
  for _, name in ipairs(src.order) do
    out[#out + 1] = ("    %s [label=%s, style=\"rounded,dashed\"];"):format(quote(("%d:%s"):format(i, name)),
      quote(name .. "\n" .. motion_label(L.motions[name])))
  end
end

--- DOT text of the definition's state machines.
-- @tparam table def an animator definition
-- @tparam[opt] table resources as for `sinew.animator`
-- @treturn string
-- @raise as `sinew.animator` does for a bad definition: "<path>: <why>"
function M.dot(def, resources)
  local compiled = Fault.run(2, "", Definition.compile, def, resources)
  local out = { "digraph animator {", "  rankdir=LR;", "  node [shape=box, style=rounded];" }
  for i, L in ipairs(compiled.layers) do
    out[#out + 1] = ("  subgraph cluster_%d {"):format(i)
    if L.synced then synced_layer(out, i, L, compiled.layers[L.synced]) else machine(out, i, L) end
    out[#out + 1] = "  }"
  end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

return M
