-- Writes a zip archive of stored (uncompressed) files, which is all a `.love` needs:
--   lua5.4 tools/zip.lua OUT.zip NAME=PATH ...
-- NAME is the file's name inside the archive, PATH where to read it. Lua 5.3+ (bit operators).
local out_path = assert(arg[1], "usage: lua5.4 tools/zip.lua OUT.zip NAME=PATH ...")

local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if c & 1 == 1 then c = 0xEDB88320 ~ (c >> 1) else c = c >> 1 end
  end
  crc_table[i] = c
end

local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = crc_table[(c ~ s:byte(i)) & 0xFF] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end

local entries, body, offset = {}, {}, 0
for i = 2, #arg do
  local name, path = arg[i]:match("^([^=]+)=(.+)$")
  assert(name, "not NAME=PATH: " .. arg[i])
  local f = assert(io.open(path, "rb"))
  local data = f:read("a")
  f:close()
  local crc = crc32(data)
  -- local file header: version 10, no flags, stored, no time
  local header = string.pack("<I4I2I2I2I2I2I4I4I4I2I2", 0x04034b50, 10, 0, 0, 0, 0x21, crc, #data, #data, #name, 0)
  body[#body + 1] = header .. name .. data
  entries[#entries + 1] = { name = name, crc = crc, size = #data, offset = offset }
  offset = offset + #header + #name + #data
end

local central = {}
for _, e in ipairs(entries) do
  central[#central + 1] = string.pack("<I4I2I2I2I2I2I2I4I4I4I2I2I2I2I2I4I4", 0x02014b50, 20, 10, 0, 0, 0, 0x21, e.crc,
    e.size, e.size, #e.name, 0, 0, 0, 0, 0, e.offset) .. e.name
end
local dir = table.concat(central)
local tail = string.pack("<I4I2I2I2I2I4I4I2", 0x06054b50, 0, 0, #entries, #entries, #dir, offset, 0)

local f = assert(io.open(out_path, "wb"))
f:write(table.concat(body), dir, tail)
f:close()
print(("zip: %s, %d files"):format(out_path, #entries))
