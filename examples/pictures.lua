-- Pictures for the examples, drawn in software with nothing but Lua 5.1-5.4 arithmetic:
--   a PNG writer (stored deflate blocks, CRC-32, Adler-32: Lua 5.1 has no bit operators) and a
--   reader of what it writes (for the specs), and save(), which makes the file's folder first;
--   a small RGB canvas: pixels, lines, discs, rectangles, a clip rectangle, and text in the 5 x 9
--   bitmap font of examples/font.lua;
--   plot furniture: titles, axes with ticks, numbers and names, legends, colour bars;
--   the weight map of a blend space: for a 2-D space every sample's colour mixed by its weight
--   beside one panel per sample (optionally the path its input took), for a 1-D space one weight
--   curve per sample under the mixed colours.
-- Used by weightmap.lua, demo.lua and dynamic_bones.lua through dofile.
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local font = dofile(((debug.getinfo(1, "S").source:match("^@(.*)$") or ""):gsub("[^/\\]*$", "")) .. "font.lua")

local M = {}

-- the colours the pictures share
M.PAPER, M.INK, M.GREY, M.FRAME = { 250, 250, 246 }, { 30, 30, 34 }, { 120, 120, 120 }, { 96, 96, 96 }
M.WHITE, M.BLACK = { 255, 255, 255 }, { 0, 0, 0 }

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
function M.png(width, height, rows)
  local raw = {}
  for y = 1, height do raw[y] = "\0" .. rows[y] end -- filter type 0 per row
  return "\137PNG\r\n\26\n"
    .. chunk("IHDR", be32(width) .. be32(height) .. "\8\2\0\0\0")
    .. chunk("IDAT", zlib_stored(table.concat(raw)))
    .. chunk("IEND", "")
end


-- read(data): the image of a PNG this module wrote (8-bit RGB, stored blocks, no filters), as
-- { w, h, get = function(x, y) -> r, g, b } with x, y from 0; or nil and a message for anything else
local function be32_at(s, i)
  local a, b, c, d = s:byte(i, i + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

function M.read(data)
  if type(data) ~= "string" or data:sub(1, 8) ~= "\137PNG\r\n\26\n" then return nil, "not a PNG" end
  local pos, w, h, idat = 9, nil, nil, {}
  while pos + 8 <= #data do
    local len, kind = be32_at(data, pos), data:sub(pos + 4, pos + 7)
    local body = data:sub(pos + 8, pos + 7 + len)
    if #body ~= len then return nil, "chunk '" .. kind .. "' is cut short" end
    if kind == "IHDR" then
      if body:sub(9, 13) ~= "\8\2\0\0\0" then return nil, "not 8-bit RGB without interlace" end
      w, h = be32_at(body, 1), be32_at(body, 5)
    elseif kind == "IDAT" then
      idat[#idat + 1] = body
    end
    pos = pos + 12 + len
  end
  local z = table.concat(idat)
  if not w or #z < 2 then return nil, "no IHDR or no image data" end
  local raw, at = {}, 3
  repeat
    local head = z:byte(at)
    if not head or floor(head / 2) % 4 ~= 0 then return nil, "not a stored deflate block" end
    local len = z:byte(at + 1) + 256 * z:byte(at + 2)
    raw[#raw + 1] = z:sub(at + 5, at + 4 + len)
    at = at + 5 + len
  until head % 2 == 1
  local pixels, stride = table.concat(raw), 1 + 3 * w
  if #pixels ~= h * stride then return nil, "image data of the wrong size" end
  for y = 0, h - 1 do
    if pixels:byte(y * stride + 1) ~= 0 then return nil, "a filtered row" end
  end
  return { w = w, h = h, get = function(x, y) return pixels:byte(y * stride + 2 + 3 * x, y * stride + 4 + 3 * x) end }
end

-- save(path, data): writes the file, making its folder first when it is missing (mkdir -p, or
-- mkdir on Windows); returns the path. An example that cannot write says why and exits with 1.
function M.save(path, data)
  local f = io.open(path, "wb")
  if not f then
    local dir = path:match("^(.*)[/\\][^/\\]*$")
    if dir and dir ~= "" then
      if package.config:sub(1, 1) == "\\" then
        os.execute(('mkdir "%s" 2>nul'):format((dir:gsub("/", "\\"))))
      else
        os.execute(("mkdir -p '%s'"):format((dir:gsub("'", "'\\''"))))
      end
    end
    local message
    f, message = io.open(path, "wb")
    if not f then
      io.stderr:write(("cannot write the picture: %s\n"):format(message))
      os.exit(1)
    end
  end
  f:write(data)
  f:close()
  return path
end

-- ---- a tiny RGB canvas ----
-- Colours are { r, g, b } (0-255) except in set(); x grows to the right, y down, from 0; what
-- falls outside the canvas, or outside the clip rectangle when one is set, is not drawn.

function M.canvas(w, h, background)
  local px, bg = {}, background or M.PAPER
  for i = 0, w * h - 1 do px[3 * i + 1], px[3 * i + 2], px[3 * i + 3] = bg[1], bg[2], bg[3] end
  local c = { w = w, h = h, px = px }
  local cx0, cy0, cx1, cy1 = 0, 0, w, h
  function c.clip(x, y, cw, ch) -- clip(x, y, w, h), or clip() for the whole canvas
    if x then cx0, cy0, cx1, cy1 = max(0, floor(x)), max(0, floor(y)), min(w, floor(x + cw)), min(h, floor(y + ch))
    else cx0, cy0, cx1, cy1 = 0, 0, w, h end
  end
  function c.set(x, y, r, g, b)
    x, y = floor(x), floor(y)
    if x < cx0 or y < cy0 or x >= cx1 or y >= cy1 then return end
    local i = 3 * (y * w + x)
    px[i + 1], px[i + 2], px[i + 3] = floor(r + 0.5), floor(g + 0.5), floor(b + 0.5)
  end
  function c.rect(x, y, rw, rh, col)
    for yy = floor(y), floor(y + rh) - 1 do
      for xx = floor(x), floor(x + rw) - 1 do c.set(xx, yy, col[1], col[2], col[3]) end
    end
  end
  function c.box(x, y, rw, rh, col) -- the outline of a rectangle, 1 pixel wide
    c.rect(x, y, rw, 1, col); c.rect(x, y + rh - 1, rw, 1, col)
    c.rect(x, y, 1, rh, col); c.rect(x + rw - 1, y, 1, rh, col)
  end
  function c.disc(cx, cy, radius, col)
    for y = floor(cy - radius), floor(cy + radius) + 1 do
      for x = floor(cx - radius), floor(cx + radius) + 1 do
        if (x + 0.5 - cx) ^ 2 + (y + 0.5 - cy) ^ 2 <= radius * radius then c.set(x, y, col[1], col[2], col[3]) end
      end
    end
  end
  function c.line(x0, y0, x1, y1, col, width) -- width 1 (default) or 2
    local steps = max(1, floor(max(math.abs(x1 - x0), math.abs(y1 - y0)) + 1))
    for s = 0, steps do
      local t = s / steps
      local x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
      c.set(x, y, col[1], col[2], col[3])
      if width == 2 then c.set(x + 1, y, col[1], col[2], col[3]); c.set(x, y + 1, col[1], col[2], col[3]) end
    end
  end
  -- text(x, y, s, col [, opts]): s in the bitmap font, its top-left corner at x, y; opts.scale
  -- (1), opts.align ("left", "centre" or "right": where x is along the text), opts.up (turned a
  -- quarter to read upwards: y is then where the text starts, x the glyphs' top), opts.halo (a
  -- colour drawn around the glyphs, so that text stays legible over a picture). Returns the width.
  function c.text(x, y, s, col, opts)
    opts = opts or {}
    local scale, tw = opts.scale or 1, M.text_width(s, opts.scale)
    local shift = (opts.align == "centre" and floor(tw / 2)) or (opts.align == "right" and tw) or 0
    local function dot(gx, gy, k) -- pixel (gx, gy) of the text's own frame, in colour k
      for sy = 0, scale - 1 do
        for sx = 0, scale - 1 do
          local u, v = gx * scale + sx - shift, gy * scale + sy
          if opts.up then c.set(x + v, y - u, k[1], k[2], k[3]) else c.set(x + u, y + v, k[1], k[2], k[3]) end
        end
      end
    end
    for pass = opts.halo and 1 or 2, 2 do
      for i = 1, #s do
        local glyph = font.glyphs[s:byte(i)] or font.missing
        for row = 1, font.height do
          local bits = glyph[row]
          for column = font.width - 1, 0, -1 do
            if bits % 2 == 1 then
              local gx, gy = (i - 1) * font.advance + column, row - 1
              if pass == 1 then
                for dy = -1, 1 do for dx = -1, 1 do dot(gx + dx / scale, gy + dy / scale, opts.halo) end end
              else
                dot(gx, gy, col)
              end
            end
            bits = floor(bits / 2)
          end
        end
      end
    end
    return tw
  end
  function c.rows()
    local rows = {}
    for y = 0, h - 1 do
      local parts = {}
      for x0 = 0, w - 1, 256 do -- string.char in slices: some Luas limit the number of arguments
        local slice = {}
        for x = x0, min(w - 1, x0 + 255) do
          local i = 3 * (y * w + x)
          slice[#slice + 1], slice[#slice + 2], slice[#slice + 3] = px[i + 1], px[i + 2], px[i + 3]
        end
        parts[#parts + 1] = string.char((table.unpack or unpack)(slice))
      end
      rows[y + 1] = table.concat(parts)
    end
    return rows
  end
  function c.png() return M.png(w, h, c.rows()) end
  return c
end

-- the width in pixels of s in the bitmap font at `scale` (1); a line of text is M.LINE * scale high
function M.text_width(s, scale) return (#s * font.advance - 1) * (scale or 1) end
M.LINE, M.GLYPH_HEIGHT = font.line, font.height

-- ---- plot furniture ----

-- ticks(lo, hi [, most]): tick values at 1, 2 or 5 times a power of ten, at most about `most`
-- (6) of them, and a function that writes one with as many decimals as the step needs
function M.ticks(lo, hi, most)
  local raw = (hi - lo) / (most or 6)
  local power = 10 ^ floor(math.log(raw) / math.log(10))
  local step = power * 10
  for _, m in ipairs { 1, 2, 5 } do
    if m * power >= raw * (1 - 1e-9) then step = m * power break end
  end
  local decimals = max(0, -floor(math.log(step) / math.log(10) + 1e-9))
  local list = {}
  for k = ceil(lo / step - 1e-9), floor(hi / step + 1e-9) do list[#list + 1] = k * step end
  local pattern = ("%%.%df"):format(decimals)
  return list, function(v)
    local s = pattern:format(v)
    return s:match("^%-[0.]+$") and s:sub(2) or s -- no "-0.0"
  end
end

M.TITLE_HEIGHT = 2 * font.height + 10 -- the rows a title takes at the top of a picture
M.AXIS_BELOW = 4 + font.line + 3 + font.line -- the rows below a plot: ticks, numbers, name

-- the columns left of a plot for its y axis: ticks, numbers and the name turned upwards
function M.axis_left(lo, hi, most)
  local list, label = M.ticks(lo, hi, most)
  local widest = 0
  for _, v in ipairs(list) do widest = max(widest, M.text_width(label(v))) end
  return 4 + 3 + widest + 4 + font.height + 4
end

-- title(img, s [, sub]): s centred at the top of the picture, twice the size when that fits, and
-- a line `sub` under it; title_height(sub) is the rows they take
function M.title_height(sub) return M.TITLE_HEIGHT + (sub and M.LINE or 0) end

function M.title(img, s, sub)
  local scale = M.text_width(s, 2) <= img.w - 8 and 2 or 1
  img.text(floor(img.w / 2), scale == 2 and 5 or 9, s, M.INK, { scale = scale, align = "centre" })
  if sub then img.text(floor(img.w / 2), M.TITLE_HEIGHT - 1, sub, M.INK, { align = "centre" }) end
end

-- axes(img, box, x_range, y_range, opts): the left and bottom sides of the plot area box =
-- { x, y, w, h } (pixels), ticks and numbers outside it, the axis names opts.x and opts.y
-- (opts.most: about how many ticks, 6; opts.grid: a faint line at every tick inside the box;
-- opts.no_x: the y axis alone);
-- returns to_x(value) and to_y(value), the pixel of a value on each axis
function M.axes(img, box, x_range, y_range, opts)
  local x0, y0, w, h = box[1], box[2], box[3], box[4]
  local function to_x(v) return x0 + (v - x_range[1]) / (x_range[2] - x_range[1]) * (w - 1) end
  local function to_y(v) return y0 + h - 1 - (v - y_range[1]) / (y_range[2] - y_range[1]) * (h - 1) end
  local xs, x_label = M.ticks(x_range[1], x_range[2], opts.most)
  local ys, y_label = M.ticks(y_range[1], y_range[2], opts.most)
  local faint = { 222, 222, 216 }
  if opts.grid then
    for _, v in ipairs(xs) do img.rect(floor(to_x(v) + 0.5), y0, 1, h, faint) end
    for _, v in ipairs(ys) do img.rect(x0, floor(to_y(v) + 0.5), w, 1, faint) end
  end
  img.rect(x0 - 1, y0, 1, h + (opts.no_x and 0 or 1), M.INK)
  if opts.no_x then xs = {} else img.rect(x0 - 1, y0 + h, w + 1, 1, M.INK) end
  for _, v in ipairs(xs) do
    local px = floor(to_x(v) + 0.5)
    img.rect(px, y0 + h + 1, 1, 3, M.INK)
    img.text(px, y0 + h + 6, x_label(v), M.INK, { align = "centre" })
  end
  local widest = 0
  for _, v in ipairs(ys) do
    local py = floor(to_y(v) + 0.5)
    img.rect(x0 - 4, py, 3, 1, M.INK)
    widest = max(widest, img.text(x0 - 7, py - 4, y_label(v), M.INK, { align = "right" }))
  end
  if opts.x then img.text(x0 + floor(w / 2), y0 + h + 6 + font.line + 2, opts.x, M.INK, { align = "centre" }) end
  if opts.y then
    img.text(x0 - 7 - widest - 4 - font.height, y0 + floor(h / 2), opts.y, M.INK, { align = "centre", up = true })
  end
  return to_x, to_y
end

-- legend(img, x, y, entries): a framed list at x, y, one entry { label, colour, kind } a line;
-- kind "line" (default), "dot" (ringed in black), "ring" (a white dot ringed in black, colour
-- unused) or "swatch".
-- legend_size(entries) gives its width and height first, for the layout.
function M.legend_size(entries)
  local widest = 0
  for _, e in ipairs(entries) do widest = max(widest, M.text_width(e[1])) end
  return widest + 30, #entries * (font.line + 2) + 6
end

function M.legend(img, x, y, entries)
  local w, h = M.legend_size(entries)
  img.rect(x, y, w, h, M.WHITE)
  img.box(x, y, w, h, M.GREY)
  for i, e in ipairs(entries) do
    local ly, col, kind = y + 4 + (i - 1) * (font.line + 2), e[2], e[3] or "line"
    local mx, my = x + 12, ly + 4
    if kind == "line" then img.line(mx - 7, my, mx + 7, my, col, 2)
    elseif kind == "dot" then img.disc(mx + 0.5, my + 0.5, 4, M.BLACK); img.disc(mx + 0.5, my + 0.5, 3, col)
    elseif kind == "ring" then img.disc(mx + 0.5, my + 0.5, 5, M.BLACK); img.disc(mx + 0.5, my + 0.5, 3, M.WHITE)
    else img.rect(mx - 6, my - 4, 12, 9, col) end
    img.text(x + 24, ly, e[1], M.INK)
  end
  return w, h
end

-- colour_bar(img, box, colour_of, range, name): a bar box = { x, y, w, h } going from
-- colour_of(0) on the left to colour_of(1) on the right, for values range[1] .. range[2],
-- with ticks and numbers below and `name` above
function M.colour_bar(img, box, colour_of, range, name)
  local x0, y0, w, h = box[1], box[2], box[3], box[4]
  for px = 0, w - 1 do img.rect(x0 + px, y0, 1, h, colour_of(px / (w - 1))) end
  img.box(x0 - 1, y0 - 1, w + 2, h + 2, M.GREY)
  local list, label = M.ticks(range[1], range[2], 4)
  for _, v in ipairs(list) do
    local px = floor(x0 + (v - range[1]) / (range[2] - range[1]) * (w - 1) + 0.5)
    img.rect(px, y0 + h + 1, 1, 3, M.INK)
    img.text(px, y0 + h + 5, label(v), M.INK, { align = "centre" })
  end
  img.text(x0 + floor(w / 2), y0 - font.line - 1, name, M.INK, { align = "centre" })
end

-- ---- distinct colours ----

local SEXTANTS = { { 1, 3, 2 }, { 4, 1, 2 }, { 2, 1, 3 }, { 2, 4, 1 }, { 3, 2, 1 }, { 1, 2, 4 } }

function M.hue(i, n) -- distinct, fairly bright colours: HSV with s = 0.75, v = 1
  local h = ((i - 1) / n) * 6
  local k = floor(h)
  local f = h - k
  local levels = { 1, 0.25, 1 - 0.75 * f, 1 - 0.75 * (1 - f) } -- v, p, q, t
  local pick = SEXTANTS[k % 6 + 1]
  return { floor(255 * levels[pick[1]] + 0.5), floor(255 * levels[pick[2]] + 0.5), floor(255 * levels[pick[3]] + 0.5) }
end

-- ---- the weight map of a blend space ----

-- a number for a label: at most `decimals` (2) decimals, no trailing zeros, no "-0"
local function short(v, decimals)
  local s = ("%." .. (decimals or 2) .. "f"):format(v):gsub("%.?0+$", "")
  return s == "-0" and "0" or s
end

-- the labels of the samples: number and name, or number and place; in the first of the forms
-- below in which every label fits in `room` pixels (or numbers alone), the same for all
local function sample_labels(pts, opts, dims, room)
  local forms = { function(i) return i .. " " .. tostring(opts.names[i] or "") end }
  if not opts.names and dims == 1 then forms[1] = function(i) return i .. " at " .. short(pts[i][1]) end
  elseif not opts.names then
    forms[1] = function(i) return ("%d (%s,%s)"):format(i, short(pts[i][1]), short(pts[i][2])) end
    forms[2] = function(i) return ("%d %s,%s"):format(i, short(pts[i][1]), short(pts[i][2])) end
    forms[3] = function(i) return ("%d %s,%s"):format(i, short(pts[i][1], 1), short(pts[i][2], 1)) end
  end
  forms[#forms + 1] = tostring
  for _, form in ipairs(forms) do
    local labels, fits = {}, true
    for i = 1, #pts do
      labels[i] = form(i)
      fits = fits and (not room or M.text_width(labels[i]) <= room)
    end
    if fits or form == tostring then return labels end
  end
end

-- the samples of a space, their bounding box and distinct colours
local function samples(space)
  local n, dims = #space, space:dims()
  local pts, colours, lo, hi = {}, {}, { math.huge, math.huge }, { -math.huge, -math.huge }
  for i = 1, n do
    local x, y = space:point(i)
    y = dims == 2 and y or 0
    pts[i], colours[i] = { x, y }, M.hue(i, n)
    lo[1], hi[1] = min(lo[1], x), max(hi[1], x)
    lo[2], hi[2] = min(lo[2], y), max(hi[2], y)
  end
  return pts, colours, lo, hi
end

-- a 1-D space: the mixed colours as a band over the parameter, under it one weight curve per
-- sample, the samples marked, a legend beside
local function weightmap_1d(space, size, opts)
  local pts, colours, lo, hi = samples(space)
  local n = #pts
  local pad = max(hi[1] - lo[1], 1e-9) * 0.15 -- a little either side, where the weights clamp
  local xr, yr = { lo[1] - pad, hi[1] + pad }, { -0.04, 1.04 } -- the curves at 0 and 1 clear of the frame
  local entries = {}
  local labels = sample_labels(pts, opts, 1)
  for i = 1, n do entries[i] = { labels[i], colours[i] } end
  local lw, lh = M.legend_size(entries)
  local left, band = M.axis_left(0, 1), 16
  local w, h = 2 * size, size
  local x0, y0 = left, M.title_height(opts.subtitle) + band + 8
  local img = M.canvas(max(x0 + w + 12 + lw + 8, M.text_width(opts.title or "", 2) + 16),
    max(y0 + h + M.AXIS_BELOW + 4, y0 + lh + 4))
  M.title(img, opts.title or ("%s blend space: each sample's weight"):format(space.mode), opts.subtitle)
  local to_x, to_y = M.axes(img, { x0, y0, w, h }, xr, yr,
    { x = opts.x or "parameter", y = "weight of each sample", most = 8, grid = true })
  local out, prev = {}, {}
  for px = 0, w - 1 do
    local ws = space:weights(xr[1] + px / (w - 1) * (xr[2] - xr[1]), out)
    local r, g, b = 0, 0, 0
    for i = 1, n do
      local c = colours[i]
      r, g, b = r + ws[i] * c[1], g + ws[i] * c[2], b + ws[i] * c[3]
    end
    img.rect(x0 + px, y0 - band - 4, 1, band, { r, g, b }) -- the band of mixed colours
    img.clip(x0, y0, w, h)
    for i = 1, n do
      local py = to_y(ws[i])
      if px > 0 then img.line(x0 + px - 1, prev[i], x0 + px, py, colours[i], 2) end
      prev[i] = py
    end
    img.clip()
  end
  for i = 1, n do -- the samples: a dot on the band, a dashed line down the plot, the number
    local px = floor(to_x(pts[i][1]) + 0.5)
    for py = y0, y0 + h - 1, 4 do img.rect(px, py, 1, 2, M.GREY) end
    img.disc(px + 0.5, y0 - band / 2 - 4, 5, M.BLACK)
    img.disc(px + 0.5, y0 - band / 2 - 4, 3, M.WHITE)
    img.text(px + 4, y0 + 3, tostring(i), M.INK, { halo = M.PAPER })
  end
  M.legend(img, x0 + w + 12, y0, entries)
  return img.png()
end

-- a 2-D space: the mixed colours with the samples numbered (and the triangles of the
-- triangulated modes) and axes, beside one panel per sample with its own weight
local function weightmap_2d(space, size, opts)
  local pts, colours, lo, hi = samples(space)
  local n = #pts
  local span = max(hi[1] - lo[1], hi[2] - lo[2], 1e-9) * 1.3
  local cx, cy = (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2
  local xr, yr = { cx - span / 2, cx + span / 2 }, { cy - span / 2, cy + span / 2 }
  local cols = ceil(math.sqrt(n))
  local rows = ceil(n / cols)
  local head, gap = M.LINE + 1, 4 -- a panel's label row, the space between panels
  local small = floor((size - (rows - 1) * gap - rows * head) / rows)
  local left, top = M.axis_left(yr[1], yr[2]), M.title_height(opts.subtitle) + M.LINE + 4
  local panels_x = left + size + 18
  local legend
  if opts.path then
    legend = { { opts.path_label or "the input over time", M.WHITE, "dot" },
      { opts.end_label or "where it ended", { 255, 210, 60 }, "dot" } }
  end
  local bottom = M.AXIS_BELOW + 4 + 12 + M.LINE + 6 -- the axis; a weight bar under the panels
  local width = max(panels_x + cols * small + (cols - 1) * gap + 8, M.text_width(opts.title or "", 1) + 16)
  local img = M.canvas(width, top + size + bottom + (legend and select(2, M.legend_size(legend)) + 6 or 0))
  M.title(img, opts.title or ("%s blend space: the weight of each sample"):format(space.mode), opts.subtitle)
  local function to_space(px, py, s) return cx + ((px + 0.5) / s - 0.5) * span, cy - ((py + 0.5) / s - 0.5) * span end
  local function to_pixel(x, y, s) return ((x - cx) / span + 0.5) * s, (0.5 - (y - cy) / span) * s end
  local out = {}

  img.text(left + floor(size / 2), top - M.LINE - 1, "the samples' colours mixed by weight", M.INK, { align = "centre" })
  for py = 0, size - 1 do -- the mixed map
    for px = 0, size - 1 do
      local x, y = to_space(px, py, size)
      local w = space:weights(x, y, out)
      local r, g, b = 0, 0, 0
      for i = 1, n do
        local c = colours[i]
        r, g, b = r + w[i] * c[1], g + w[i] * c[2], b + w[i] * c[3]
      end
      img.set(left + px, top + py, r, g, b)
    end
  end
  M.axes(img, { left, top, size, size }, xr, yr, { x = opts.x or "x", y = opts.y or "y" })
  img.clip(left, top, size, size)
  for _, t in ipairs(space:triangles()) do
    for k = 1, 3 do
      local a, b = pts[t[k]], pts[t[k % 3 + 1]]
      local ax, ay = to_pixel(a[1], a[2], size)
      local bx, by = to_pixel(b[1], b[2], size)
      img.line(left + ax, top + ay, left + bx, top + by, { 60, 60, 60 })
    end
  end
  local radius = size / 60 + 2
  if opts.path and #opts.path >= 2 then
    local path, x0, y0 = opts.path, nil, nil
    for k = 1, #path - 1, 2 do -- a dot per input, close enough to make a line
      x0, y0 = to_pixel(path[k], path[k + 1], size)
      img.disc(left + x0, top + y0, 1.5, M.WHITE)
    end
    img.disc(left + x0, top + y0, size / 50 + 2, M.BLACK)
    img.disc(left + x0, top + y0, size / 50, { 255, 210, 60 })
  end
  for i = 1, n do
    local x, y = to_pixel(pts[i][1], pts[i][2], size)
    img.disc(left + x, top + y, radius, M.BLACK)
    img.disc(left + x, top + y, radius - 2, M.WHITE)
    -- the number above and to the right of the dot, or on the other side near an edge
    local label = tostring(i)
    local lx = x + radius + 1 + M.text_width(label) < size - 2 and x + radius + 1 or x - radius - 1 - M.text_width(label)
    local ly = y - radius - M.GLYPH_HEIGHT + 1 > 2 and y - radius - M.GLYPH_HEIGHT + 1 or y + radius
    img.text(left + lx, top + ly, label, M.WHITE, { halo = M.BLACK })
  end
  img.clip()

  local panels_w, labels = cols * small + (cols - 1) * gap, sample_labels(pts, opts, 2, small - 3)
  img.text(panels_x + floor(panels_w / 2), top - M.LINE - 1, "each sample's own weight", M.INK, { align = "centre" })
  for i = 1, n do -- one panel per sample, its label above it in its colour
    local ox = panels_x + ((i - 1) % cols) * (small + gap)
    local oy = top + floor((i - 1) / cols) * (small + gap + head)
    local c = colours[i]
    img.rect(ox, oy, small, head, M.BLACK)
    img.clip(ox, oy, small, head)
    img.text(ox + 2, oy + 1, labels[i], c)
    img.clip()
    oy = oy + head
    for py = 0, small - 1 do
      for px = 0, small - 1 do
        local x, y = to_space(px, py, small)
        local w = space:weights(x, y, out)[i]
        img.set(ox + px, oy + py, w * c[1], w * c[2], w * c[3])
      end
    end
    img.clip(ox, oy, small, small)
    for k = 1, n do
      local x, y = to_pixel(pts[k][1], pts[k][2], small)
      if k == i then img.disc(ox + x, oy + y, 4, M.WHITE) end
      img.disc(ox + x, oy + y, 2, k == i and M.BLACK or { 128, 128, 128 })
    end
    img.clip()
  end
  local bar_y = top + size + M.LINE + 6
  M.colour_bar(img, { panels_x + 4, bar_y, panels_w - 8, 8 }, function(f) return { 255 * f, 255 * f, 255 * f } end,
    { 0, 1 }, "weight: black 0, full colour 1")
  if legend then M.legend(img, left, top + size + M.AXIS_BELOW + 6, legend) end
  return img.png()
end

-- weightmap(space, size [, opts]): the PNG of a 1-D or 2-D blend space, the plot `size` pixels
-- high. opts: title and subtitle, x and y (the axes' names, with their units), names (one per sample, for the
-- labels), path (a flat list x1, y1, x2, y2, ... of inputs of a 2-D space, drawn over the map as
-- white dots ending in a ringed one) with path_label and end_label for its legend.
function M.weightmap(space, size, opts)
  opts = opts or {}
  if space:dims() == 1 then return weightmap_1d(space, size, opts) end
  return weightmap_2d(space, size, opts)
end

return M
