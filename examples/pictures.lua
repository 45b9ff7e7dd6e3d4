-- Pictures for the examples, drawn in software with nothing but Lua 5.1-5.4 arithmetic: a PNG
-- writer (stored deflate blocks, CRC-32, Adler-32: Lua 5.1 has no bit operators), a small RGB
-- canvas (pixels, lines, discs), distinct colours, and the weight map of a blend space (each
-- sample's colour mixed by its weight, and one panel per sample; for a 2-D space optionally the
-- path its input took). Used by weightmap.lua and demo.lua through dofile; returns
-- { png, canvas, hue, weightmap }.
local floor = math.floor

-- ---- PNG writing ----

local XOR = {} -- XOR[a * 256 + b] = a xor b for bytes
do
  for a = 0, 255 do
    for b = 0, 255 do
      local r, bit, x, y = 0, 1, a, b
      for _ = 1, 8 do
        if x % 2 ~= y % 2 then r = r + bit end
        x, y, bit = floor(x / 2), floor(y / 2), bit * 2
      end
      XOR[a * 256 + b] = r
    end
  end
end

-- CRC-32 table as four byte tables (low byte first)
local T0, T1, T2, T3 = {}, {}, {}, {}
do
  for n = 0, 255 do
    local c = n
    for _ = 1, 8 do
      local low = c % 2
      c = floor(c / 2)
      if low == 1 then -- c = c xor 0xEDB88320, byte by byte
        local b0, b1, b2, b3 = c % 256, floor(c / 256) % 256, floor(c / 65536) % 256, floor(c / 16777216)
        c = XOR[b0 * 256 + 0x20] + 256 * XOR[b1 * 256 + 0x83] + 65536 * XOR[b2 * 256 + 0xB8]
          + 16777216 * XOR[b3 * 256 + 0xED]
      end
    end
    T0[n], T1[n], T2[n], T3[n] = c % 256, floor(c / 256) % 256, floor(c / 65536) % 256, floor(c / 16777216)
  end
end

local function crc32(s)
  local c0, c1, c2, c3 = 255, 255, 255, 255 -- 0xFFFFFFFF
  for i = 1, #s, 4096 do
    local bytes = { s:byte(i, math.min(#s, i + 4095)) }
    for k = 1, #bytes do
      local n = XOR[c0 * 256 + bytes[k]]
      c0, c1, c2, c3 = XOR[T0[n] * 256 + c1], XOR[T1[n] * 256 + c2], XOR[T2[n] * 256 + c3], T3[n]
    end
  end
  return (255 - c0) + 256 * (255 - c1) + 65536 * (255 - c2) + 16777216 * (255 - c3)
end

local function adler32(s)
  local a, b = 1, 0
  for i = 1, #s, 4096 do
    local bytes = { s:byte(i, math.min(#s, i + 4095)) }
    for k = 1, #bytes do
      a = a + bytes[k]
      b = b + a
    end
    a, b = a % 65521, b % 65521
  end
  return b * 65536 + a
end

local function be32(n)
  return string.char(floor(n / 16777216) % 256, floor(n / 65536) % 256, floor(n / 256) % 256, n % 256)
end

local function chunk(kind, data) return be32(#data) .. kind .. data .. be32(crc32(kind .. data)) end

-- zlib stream of stored (uncompressed) deflate blocks
local function zlib_stored(data)
  local parts, pos = { "\120\1" }, 1
  repeat
    local block = data:sub(pos, pos + 65534)
    pos = pos + #block
    local len = #block
    parts[#parts + 1] = string.char(pos > #data and 1 or 0, len % 256, floor(len / 256),
      255 - len % 256, 255 - floor(len / 256)) .. block
  until pos > #data
  parts[#parts + 1] = be32(adler32(data))
  return table.concat(parts)
end

-- rows: list of strings of 3 * width bytes (RGB)
local function png(width, height, rows)
  local raw = {}
  for y = 1, height do raw[y] = "\0" .. rows[y] end -- filter type 0 per row
  return "\137PNG\r\n\26\n"
    .. chunk("IHDR", be32(width) .. be32(height) .. "\8\2\0\0\0")
    .. chunk("IDAT", zlib_stored(table.concat(raw)))
    .. chunk("IEND", "")
end

-- ---- a tiny RGB canvas ----

local function canvas(w, h)
  local px = {}
  for i = 1, 3 * w * h do px[i] = 96 end -- grey between the panels
  local c = { w = w, h = h, px = px }
  function c.set(x, y, r, g, b)
    if x < 0 or y < 0 or x >= w or y >= h then return end
    local i = 3 * (y * w + x)
    px[i + 1], px[i + 2], px[i + 3] = r, g, b
  end
  function c.disc(cx, cy, radius, r, g, b)
    for y = floor(cy - radius), floor(cy + radius) + 1 do
      for x = floor(cx - radius), floor(cx + radius) + 1 do
        if (x + 0.5 - cx) ^ 2 + (y + 0.5 - cy) ^ 2 <= radius * radius then c.set(x, y, r, g, b) end
      end
    end
  end
  function c.line(x0, y0, x1, y1, r, g, b)
    local steps = math.max(1, floor(math.max(math.abs(x1 - x0), math.abs(y1 - y0)) + 1))
    for s = 0, steps do
      local t = s / steps
      c.set(floor(x0 + t * (x1 - x0)), floor(y0 + t * (y1 - y0)), r, g, b)
    end
  end
  function c.rows()
    local rows = {}
    for y = 0, h - 1 do
      local parts = {}
      for x0 = 0, w - 1, 256 do -- string.char in slices: some Luas limit the number of arguments
        local slice = {}
        for x = x0, math.min(w - 1, x0 + 255) do
          local i = 3 * (y * w + x)
          slice[#slice + 1], slice[#slice + 2], slice[#slice + 3] = px[i + 1], px[i + 2], px[i + 3]
        end
        parts[#parts + 1] = string.char((table.unpack or unpack)(slice))
      end
      rows[y + 1] = table.concat(parts)
    end
    return rows
  end
  return c
end

-- ---- the picture ----

local SEXTANTS = { { 1, 3, 2 }, { 4, 1, 2 }, { 2, 1, 3 }, { 2, 4, 1 }, { 3, 2, 1 }, { 1, 2, 4 } }

local function hue(i, n) -- distinct, fairly bright colours: HSV with s = 0.75, v = 1
  local h = ((i - 1) / n) * 6
  local k = floor(h)
  local f = h - k
  local levels = { 1, 0.25, 1 - 0.75 * f, 1 - 0.75 * (1 - f) } -- v, p, q, t
  local pick = SEXTANTS[k % 6 + 1]
  return { 255 * levels[pick[1]], 255 * levels[pick[2]], 255 * levels[pick[3]] }
end

-- weightmap(space, size [, path]): the PNG; `path` is a flat list x1, y1, x2, y2, ... of inputs
-- of a 2-D space, drawn over the mixed map as a white line ending in a ringed dot
local function render(space, size, path)
  local n, dims = #space, space:dims()
  local pts = {}
  local lo, hi = { math.huge, math.huge }, { -math.huge, -math.huge }
  for i = 1, n do
    local x, y = space:point(i)
    y = dims == 2 and y or 0
    pts[i] = { x, y }
    lo[1], hi[1] = math.min(lo[1], x), math.max(hi[1], x)
    lo[2], hi[2] = math.min(lo[2], y), math.max(hi[2], y)
  end
  local span = math.max(hi[1] - lo[1], hi[2] - lo[2], 1e-9) * 1.3
  local cx, cy = (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2
  local cols = math.ceil(math.sqrt(n))
  local small = floor((size - 4 * (cols - 1)) / cols)
  local width = size + 12 + cols * small + 4 * (cols - 1)
  local img = canvas(width, size)
  local colours = {}
  for i = 1, n do colours[i] = hue(i, n) end
  local function to_space(px, py, s) return cx + ((px + 0.5) / s - 0.5) * span, cy - ((py + 0.5) / s - 0.5) * span end
  local function to_pixel(x, y, s) return ((x - cx) / span + 0.5) * s, (0.5 - (y - cy) / span) * s end
  local out = {}
  local function weights(x, y)
    if dims == 2 then return space:weights(x, y, out) end
    return space:weights(x, out)
  end

  for py = 0, size - 1 do -- the mixed map
    for px = 0, size - 1 do
      local w = weights(to_space(px, py, size))
      local r, g, b = 0, 0, 0
      for i = 1, n do
        local c = colours[i]
        r, g, b = r + w[i] * c[1], g + w[i] * c[2], b + w[i] * c[3]
      end
      img.set(px, py, floor(r + 0.5), floor(g + 0.5), floor(b + 0.5))
    end
  end
  for _, t in ipairs(space:triangles()) do
    for k = 1, 3 do
      local a, b = pts[t[k]], pts[t[k % 3 + 1]]
      local ax, ay = to_pixel(a[1], a[2], size)
      local bx, by = to_pixel(b[1], b[2], size)
      img.line(ax, ay, bx, by, 60, 60, 60)
    end
  end
  for i = 1, n do
    local x, y = to_pixel(pts[i][1], pts[i][2], size)
    img.disc(x, y, size / 60 + 2, 0, 0, 0)
    img.disc(x, y, size / 60, 255, 255, 255)
  end
  if path and dims == 2 and #path >= 2 then
    local x0, y0
    for k = 1, #path - 1, 2 do -- a dot per input, close enough to make a line
      x0, y0 = to_pixel(path[k], path[k + 1], size)
      img.disc(x0, y0, 1.5, 255, 255, 255)
    end
    img.disc(x0, y0, size / 50 + 2, 0, 0, 0)
    img.disc(x0, y0, size / 50, 255, 210, 60)
  end

  for i = 1, n do -- one panel per sample
    local ox = size + 12 + ((i - 1) % cols) * (small + 4)
    local oy = floor((i - 1) / cols) * (small + 4)
    local c = colours[i]
    for py = 0, small - 1 do
      for px = 0, small - 1 do
        local w = weights(to_space(px, py, small))[i]
        img.set(ox + px, oy + py, floor(w * c[1] + 0.5), floor(w * c[2] + 0.5), floor(w * c[3] + 0.5))
      end
    end
    for k = 1, n do
      local x, y = to_pixel(pts[k][1], pts[k][2], small)
      if k == i then img.disc(ox + x, oy + y, 4, 255, 255, 255) end
      img.disc(ox + x, oy + y, 2, k == i and 0 or 128, k == i and 0 or 128, k == i and 0 or 128)
    end
  end
  return png(width, size, img.rows())
end

return { png = png, canvas = canvas, hue = hue, weightmap = render }
