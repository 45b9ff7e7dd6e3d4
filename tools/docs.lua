-- Finishes and checks the reference that LDoc writes (`make docs`):
--
--   lua tools/docs.lua doc      finish doc/, then check it; exits 1 listing every fault
--   lua tools/docs.lua --source check the guides' links and the modules without LDoc's output
--
-- Finishing: the guides (manual/*.md) link to each other as GitHub shows them (`poses.md`,
-- `gltf.md#limits`); LDoc writes a guide as topics/<name>.md.html, so links to a guide are pointed
-- there, and each heading gets the anchor GitHub gives it (so `#limits` works in both). The
-- topics table of the index gets each guide's title and its one-line summary (the comment
-- `<!-- summary: ... -->` under its title). The stylesheet gets tools/docs.css (long code lines
-- scroll inside their block, wide tables scroll, pictures fit the column).
--
-- Checking: every link of every page resolves (the file exists, and the anchor is on that page);
-- each public module (any `@module` / `@classmod` of lua/ and src/binding not matched by INTERNAL
-- below) has its page with a summary, and no internal module has one; no summary is cut short
-- (LDoc ends a summary at the first period before a space: "e.g. ", "1 .. n").
-- The spec spec/docs_html_spec.lua runs the same checks on the sources (and on LDoc's output when
-- ldoc is installed).
local M = {}

--- Internal modules, as Lua patterns of module names: they are for contributors, and stay out of
-- the reference (config.ld lists the public files). Whatever lies under sinew.ffi is internal.
M.INTERNAL = {
  "^sinew%.core$", "^sinew%.ffi$", "^sinew%.ffi%.", "^sinew%.fault$", "^sinew%.json$", "^sinew%.native$",
  "^sinew%.animator%.definition$", "^sinew%.animator%.events$", "^sinew%.animator%.layer$",
  "^sinew%.animator%.motion$", "^sinew%.animator%.plan$", "^sinew%.animator%.pose_kind$",
  "^sinew%.animator%.root_motion$", "^sinew%.animator%.snapshot$", "^sinew%.animator%.ik$",
  "^sinew%.animator%.spring$", "^sinew%.animator%.morphs$",
  "^sinew%.gltf%.clips$", "^sinew%.gltf%.document$", "^sinew%.gltf%.meshes$", "^sinew%.gltf%.morphs$",
  "^sinew%.gltf%.skeleton$",
  "^sinew%.dragonbones%.animation$", "^sinew%.dragonbones%.armature$", "^sinew%.dragonbones%.compile$",
  "^sinew%.dragonbones%.kind$", "^sinew%.dragonbones%.playhead$", "^sinew%.dragonbones%.values$",
  "^sinew%.bvh%.read$",
}

--- The sources whose `@module` / `@classmod` tags name the modules.
M.SOURCES = { "lua", "src/binding" }

-- ---- files ---------------------------------------------------------------------------------------

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  return text
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- the files under `dir` whose names end with `suffix`, sorted
local function files(dir, suffix)
  local out = {}
  local p = io.popen(("find '%s' -type f 2>/dev/null"):format(dir))
  for line in p:lines() do
    if line:sub(-#suffix) == suffix then out[#out + 1] = line end
  end
  p:close()
  table.sort(out)
  return out
end

local function dirname(path) return path:match("^(.*)/[^/]*$") or "." end

-- `path` with `.` and `dir/..` taken out ("manual/../README.md" -> "README.md")
local function normalise(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." and #parts > 0 and parts[#parts] ~= ".." then
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return (path:sub(1, 1) == "/" and "/" or "") .. table.concat(parts, "/")
end

-- ---- markdown ------------------------------------------------------------------------------------

-- the lines of a markdown text outside fenced code blocks, as {text, line number}
local function prose_lines(text)
  local out, fenced, n = {}, false, 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:match("^%s*```") then
      fenced = not fenced
    elseif not fenced then
      out[#out + 1] = { text = line, line = n }
    end
  end
  return out
end

local function utf8_char(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

--- The anchor GitHub gives a heading: its text without markup, lower case, punctuation and symbols
-- dropped, each space a hyphen ("A packed game: `.love` files" -> "a-packed-game-love-files").
function M.slug(heading)
  local s = heading:gsub("%[([^%]]*)%]%b()", "%1"):gsub("<[^>]*>", ""):gsub("[`*]", "")
  s = s:match("^%s*(.-)%s*$"):lower()
  local out = {}
  local i = 1
  while i <= #s do
    local c = s:byte(i)
    local len = c < 0x80 and 1 or c >= 0xF0 and 4 or c >= 0xE0 and 3 or 2
    local cp = c
    if len == 2 then cp = (c % 32) * 64 + s:byte(i + 1) % 64 end
    if len == 3 then cp = (c % 16) * 4096 + (s:byte(i + 1) % 64) * 64 + s:byte(i + 2) % 64 end
    if len == 1 then
      local ch = string.char(c)
      if ch:match("[%w_%-]") then out[#out + 1] = ch elseif ch == " " then out[#out + 1] = "-" end
    elseif len == 2 and cp >= 0xC0 and cp <= 0xDE and cp ~= 0xD7 then
      out[#out + 1] = utf8_char(cp + 0x20) -- Latin-1 capitals (LÖVE -> löve)
    elseif not ((cp >= 0x80 and cp <= 0xBF) or cp == 0xD7 or cp == 0xF7 or (cp >= 0x2000 and cp <= 0x2BFF)) then
      out[#out + 1] = s:sub(i, i + len - 1) -- letters; punctuation and symbols (U+2000 ..) dropped
    end
    i = i + len
  end
  return table.concat(out)
end

--- The headings of a markdown text in order: {level, text, slug} (slugs made unique as GitHub
-- does: "x", "x-1", "x-2").
function M.headings(text)
  local out, seen = {}, {}
  for _, l in ipairs(prose_lines(text)) do
    local marks, title = l.text:match("^(#+)%s+(.-)%s*#*%s*$")
    if marks then
      local slug = M.slug(title)
      if seen[slug] then
        seen[slug] = seen[slug] + 1
        slug = slug .. "-" .. seen[slug]
      else
        seen[slug] = 0
      end
      out[#out + 1] = { level = #marks, text = title, slug = slug }
    end
  end
  return out
end

--- The links and pictures of a markdown text outside code: {target, line} for each `[..](target)`
-- and `![..](target)`, reference-style definitions `[x]: target` and HTML `href`/`src`.
function M.links(text)
  local out = {}
  for _, l in ipairs(prose_lines(text)) do
    local line = l.text:gsub("``.-``", ""):gsub("`[^`]*`", "")
    for target in line:gmatch("%]%(%s*<?([^%s%)>]+)>?[^%)]*%)") do out[#out + 1] = { target = target, line = l.line } end
    local ref = line:match("^%s*%[[^%]]+%]:%s*(%S+)")
    if ref then out[#out + 1] = { target = ref, line = l.line } end
    for attr, target in line:gmatch('(%a+)%s*=%s*"([^"]*)"') do
      if attr == "href" or attr == "src" then out[#out + 1] = { target = target, line = l.line } end
    end
  end
  return out
end

local function external(target) return target:match("^%a[%w+.-]*:") ~= nil end

-- an anchor as written in a link, %-escapes decoded ("l%C3%B6ve" -> "löve")
local function unescape(anchor)
  return (anchor:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

--- The faults of the links of the markdown file `path` (relative to the repository's root): each
-- a string "path:line: ...". A link resolves when its file exists and, for a link into a markdown
-- file, its anchor is one of that file's headings as GitHub names them.
function M.markdown_faults(path)
  local text = assert(read(path), "cannot read " .. path)
  local faults, anchors = {}, {}
  local function anchors_of(file)
    if not anchors[file] then
      anchors[file] = {}
      for _, h in ipairs(M.headings(read(file) or "")) do anchors[file][h.slug] = true end
    end
    return anchors[file]
  end
  for _, link in ipairs(M.links(text)) do
    local target = link.target
    if not external(target) then
      local file, anchor = target:match("^([^#]*)#?(.*)$")
      anchor = unescape(anchor)
      file = file == "" and path or normalise(dirname(path) .. "/" .. file)
      local where = ("%s:%d: "):format(path, link.line)
      if not exists(file) and not exists(file .. "/.") then
        faults[#faults + 1] = where .. ("'%s': no file %s"):format(target, file)
      elseif anchor ~= "" and file:match("%.md$") and not anchors_of(file)[anchor] then
        faults[#faults + 1] = where .. ("'%s': %s has no heading with the anchor '#%s'"):format(target, file, anchor)
      end
    end
  end
  return faults
end

--- A guide's one-line summary: the comment `<!-- summary: ... -->` under its title, or nil.
function M.guide_summary(text)
  local s = text:match("<!%-%-%s*summary:%s*(.-)%s*%-%->")
  return s
end

-- ---- modules -------------------------------------------------------------------------------------

function M.is_internal(name)
  for _, pattern in ipairs(M.INTERNAL) do
    if name:match(pattern) then return true end
  end
  return false
end

--- The modules the sources declare: { [name] = file } from each `@module` and `@classmod` tag of
-- a doc comment in lua/ and src/binding (under `root`, default ".").
function M.declared_modules(root)
  root = root or "."
  local out = {}
  for _, dir in ipairs(M.SOURCES) do
    for _, suffix in ipairs { ".lua", ".c" } do
      for _, file in ipairs(files(root .. "/" .. dir, suffix)) do
        for line in (read(file) .. "\n"):gmatch("([^\n]*)\n") do
          local name = line:match("^%s*%-%-+%s*@module%s+([%w_.]+)") or line:match("^%s*%-%-+%s*@classmod%s+([%w_.]+)")
            or line:match("^%s*%*%s*@module%s+([%w_.]+)") or line:match("^%s*%*%s*@classmod%s+([%w_.]+)")
          if name then out[name] = out[name] or file:sub(#root + 2) end
        end
      end
    end
  end
  return out
end

--- The files config.ld gives LDoc: { files = {...}, exclude = {...} } (paths and folders).
function M.config_files(root)
  root = root or "."
  local env = {}
  local text = assert(read(root .. "/config.ld"), "cannot read config.ld")
  local chunk
  if setfenv then
    chunk = assert(loadstring(text, "config.ld"))
    setfenv(chunk, env)
  else
    chunk = assert(load(text, "config.ld", "t", env))
  end
  chunk()
  local list = env.file
  if type(list) == "string" then list = { list } end
  local out = { files = {}, exclude = {} }
  for _, f in ipairs(list or {}) do out.files[#out.files + 1] = f end
  for _, f in ipairs(list and list.exclude or {}) do out.exclude[#out.exclude + 1] = f end
  return out
end

--- Whether config.ld gives LDoc the file `file` (a path under the root).
function M.configured(config, file)
  for _, f in ipairs(config.exclude) do
    if f == file then return false end
  end
  for _, f in ipairs(config.files) do
    if f == file or file:sub(1, #f + 1) == f .. "/" then return true end
  end
  return false
end

--- The faults of the module split, read from the sources: each public module's file is one that
-- config.ld gives LDoc, and no internal module's file is.
function M.source_module_faults(root)
  local config, faults = M.config_files(root), {}
  local declared = M.declared_modules(root)
  local names = {}
  for name in pairs(declared) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local file = declared[name]
    local given = M.configured(config, file)
    if M.is_internal(name) and given then
      faults[#faults + 1] = ("%s (%s) is internal, yet config.ld gives it to LDoc"):format(name, file)
    elseif not M.is_internal(name) and not given then
      faults[#faults + 1] = ("%s (%s) is public (not matched by INTERNAL in tools/docs.lua), yet config.ld "
        .. "does not give it to LDoc: add its file to config.ld, or its name to INTERNAL"):format(name, file)
    end
  end
  return faults, declared
end

-- ---- finishing the HTML --------------------------------------------------------------------------

local function decode(s)
  return (s:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&apos;", "'"):gsub("&#39;", "'")
    :gsub("&rsquo;", "'"):gsub("&lsquo;", "'"):gsub("&ldquo;", '"'):gsub("&rdquo;", '"')
    :gsub("&hellip;", "..."):gsub("&ndash;", "-"):gsub("&mdash;", "-"):gsub("&nbsp;", " "):gsub("&amp;", "&"))
end

-- text of an HTML fragment without its tags
local function text_of(html) return decode(html:gsub("<[^>]*>", "")) end

local function absolute(path)
  if path:sub(1, 1) == "/" then return normalise(path) end
  local p = io.popen("pwd")
  local cwd = p:read("*l")
  p:close()
  return normalise(cwd .. "/" .. path)
end

-- the relative path from folder `from` to file `to`
local function relative(from, to)
  local a, b = {}, {}
  for part in absolute(from):gmatch("[^/]+") do a[#a + 1] = part end
  for part in absolute(to):gmatch("[^/]+") do b[#b + 1] = part end
  local same = 0
  while same < #a and same < #b - 1 and a[same + 1] == b[same + 1] do same = same + 1 end
  local out = {}
  for _ = same + 1, #a do out[#out + 1] = ".." end
  for i = same + 1, #b do out[#out + 1] = b[i] end
  return table.concat(out, "/")
end

--- Finishes the page of guide `name` ("poses.md", whose source is `manual_dir/name`): links to
-- other guides point at their pages, links to other files of the repository (`../examples/x.lua`)
-- at those files from the page's folder `page_dir` (when given; pictures are copied beside the
-- pages, so they resolve as they are), and each heading of the content gets GitHub's anchor.
-- Returns the new HTML, or nil and why.
function M.finish_topic(html, name, manual_dir, page_dir)
  -- links into a guide: "x.md" or "x.md#a" -> "x.md.html" (the pages sit side by side)
  html = html:gsub('(%s)(%a+)="([^"]*)"', function(space, attr, target)
    if (attr ~= "href" and attr ~= "src") or external(target) or target:sub(1, 1) == "#" then return nil end
    local file, anchor = target:match("^([^#]*)(.*)$")
    local guide = file:match("^[^/:]+%.md$") or file:match("^%./([^/]+%.md)$")
    if guide and exists(manual_dir .. "/" .. guide) then
      return ('%s%s="%s.html%s"'):format(space, attr, guide, anchor)
    elseif page_dir and not exists(page_dir .. "/" .. file) and exists(manual_dir .. "/" .. file) then
      return ('%s%s="%s%s"'):format(space, attr, relative(page_dir, manual_dir .. "/" .. file), anchor)
    end
  end)
  -- GitHub's anchors on the headings of the content, in the order of the markdown's headings
  local source = read(manual_dir .. "/" .. name)
  if not source then return nil, "no guide " .. manual_dir .. "/" .. name end
  local heads = M.headings(source)
  local start = html:find('<div id="content">', 1, true)
  if not start then return nil, name .. ": no content" end
  local i, faults = 0, {}
  local body = html:sub(start):gsub("<h([1-6])([^>]*)>(.-)</h%1>", function(level, attrs, inner)
    i = i + 1
    local h = heads[i]
    if not h or h.level ~= tonumber(level) then
      faults[#faults + 1] = ("heading %d (%s) is not the guide's heading %d"):format(i, text_of(inner), i)
      return nil
    end
    if attrs:find("id=", 1, true) then return nil end -- finished already
    return ('<h%s%s id="%s">%s</h%s>'):format(level, attrs, h.slug, inner, level)
  end)
  if i ~= #heads then
    faults[#faults + 1] = ("%d headings in the page, %d in the guide"):format(i, #heads)
  end
  if #faults > 0 then return nil, name .. ": " .. table.concat(faults, "; ") end
  return html:sub(1, start - 1) .. body
end

--- Finishes the index: each guide's row of the topics table shows its title and its summary.
function M.finish_index(html, manual_dir)
  local faults = {}
  html = html:gsub('(<td class="name"%s*nowrap><a href="topics/([^"]+)%.html">)[^<]*(</a></td>%s*<td class="summary">)%s*(</td>)',
    function(open, guide, middle, close)
      local text = read(manual_dir .. "/" .. guide)
      local title = text and text:match("^#%s+([^\n]-)%s*\n")
      local summary = text and M.guide_summary(text)
      if not title or not summary then
        faults[#faults + 1] = ("manual/%s has no %s"):format(guide, title and "<!-- summary: ... --> under its title"
          or "title")
        return nil
      end
      local function escape(s) return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end
      local function code(s) return (escape(s):gsub("`([^`]*)`", "<code>%1</code>")) end
      return open .. code(title) .. middle .. code(summary) .. close
    end)
  return html, faults
end

--- The functions `require "sinew"` gives from the C binding, as { [name] = "sinew.pose.html#blend" }.
-- A binding module named for its constructor (sinew.pose documents `pose`) puts its plain
-- functions on `sinew` itself: `sinew.pose`, `sinew.blend`, `sinew.delta`, ... LDoc knows
-- `sinew.blend` only as `blend` of sinew.pose, so it does not link it. (sinew.quat, which has no
-- function `quat`, is a table of its own: `sinew.quat.slerp`, which LDoc links.)
function M.core_functions(dir, root)
  local out = {}
  for name, file in pairs(M.declared_modules(root)) do
    local html = file:match("%.c$") and read(dir .. "/modules/" .. name .. ".html") or ""
    local constructor = name:match("^sinew%.([%w_]+)$")
    if constructor and html:find('<a name%s*=%s*"' .. constructor .. '"') then
      for fn in html:gmatch('<a name%s*=%s*"([%w_]+)"') do out[fn] = name .. ".html#" .. fn end
    end
  end
  return out
end

--- Links each `sinew.<function>` that LDoc left as code to its entry in the reference (on a page
-- of topics/ or modules/).
function M.link_core_functions(html, functions)
  local content = html:find('<div id="content">', 1, true) or 1
  local title = select(2, html:find("</h1>", content, true)) or 0 -- the page's own name stays as it is
  return html:sub(1, title) .. html:sub(title + 1):gsub("<code>sinew%.([%w_]+)</code>", function(fn)
    if functions[fn] then return ('<a href="../modules/%s">sinew.%s</a>'):format(functions[fn], fn) end
  end)
end

--- Finishes the HTML under `dir` (LDoc's output); returns the faults found on the way.
function M.finish(dir, manual_dir)
  manual_dir = manual_dir or "manual"
  local faults = {}
  -- the guides' pictures beside their pages, as manual/images sits beside the guides
  if not os.execute(("mkdir -p '%s/topics/images' && cp -R '%s/images/.' '%s/topics/images/'"):format(dir, manual_dir,
    dir)) then
    faults[#faults + 1] = "cannot copy " .. manual_dir .. "/images into " .. dir .. "/topics/images"
  end
  local functions = M.core_functions(dir)
  for _, page in ipairs(files(dir .. "/topics", ".md.html")) do
    local name = page:match("([^/]+)%.html$")
    local html, why = M.finish_topic(read(page), name, manual_dir, dir .. "/topics")
    if html then write(page, M.link_core_functions(html, functions)) else faults[#faults + 1] = why end
  end
  for _, page in ipairs(files(dir .. "/modules", ".html")) do
    write(page, M.link_core_functions(read(page), functions))
  end
  local index, index_faults = M.finish_index(read(dir .. "/index.html"), manual_dir)
  write(dir .. "/index.html", index)
  for _, f in ipairs(index_faults) do faults[#faults + 1] = f end
  local css = dir .. "/ldoc_fixed.css"
  local sheet, ours = read(css), read(dirname(arg and arg[0] or "tools/docs.lua") .. "/docs.css") or read("tools/docs.css")
  if not sheet or not ours then
    faults[#faults + 1] = "no stylesheet " .. css .. " or tools/docs.css"
  elseif not sheet:find(ours, 1, true) then
    write(css, sheet .. "\n" .. ours)
  end
  return faults
end

-- ---- checking the HTML ---------------------------------------------------------------------------

--- Whether a summary (as text) is cut short by LDoc's rule (the first period before a space ends
-- it): it ends with an abbreviation or an open range, or leaves a bracket or a code span open.
function M.cut_summary(s)
  s = s:match("^%s*(.-)%s*$")
  if s == "" then return false end
  for _, tail in ipairs { "e%.g%.$", "i%.e%.$", "cf%.$", "vs%.$", "%.%.%.?$" } do
    if s:match(tail) then return true end
  end
  local _, open = s:gsub("[%(%[{]", "")
  local _, close = s:gsub("[%)%]}]", "")
  if open > close then return true end
  local _, ticks = s:gsub("`", "")
  return ticks % 2 == 1
end

--- The faults of the pages under `dir`: links that do not resolve (a file that is not there, an
-- anchor that is not on its page), summaries cut short or empty on the index, code that markdown
-- took for emphasis. Returns the faults and the pages ({ [path] = html }).
function M.page_faults(dir)
  local faults, pages, anchors = {}, {}, {}
  for _, page in ipairs(files(dir, ".html")) do
    local html = read(page)
    pages[page] = html
    anchors[page] = {}
    for a in html:gmatch('%sname%s*=%s*"([^"]*)"') do anchors[page][a] = true end
    for a in html:gmatch('%sid%s*=%s*"([^"]*)"') do anchors[page][a] = true end
  end
  local names = {}
  for page in pairs(pages) do names[#names + 1] = page end
  table.sort(names)
  for _, page in ipairs(names) do
    local html = pages[page]
    for attr, target in html:gmatch('%s(%a+)%s*=%s*"([^"]*)"') do
      if (attr == "href" or attr == "src") and not external(target) then
        local file, anchor = target:match("^([^#?]*)[^#]*#?(.*)$")
        anchor = unescape(anchor)
        local path = file == "" and page or normalise(dirname(page) .. "/" .. file)
        if not exists(path) then
          faults[#faults + 1] = ("%s: %s='%s': no file %s"):format(page, attr, target, path)
        elseif anchor ~= "" and pages[path] and not anchors[path][anchor] then
          faults[#faults + 1] = ("%s: %s='%s': %s has no anchor '%s'"):format(page, attr, target, path, anchor)
        end
      end
    end
    -- summaries: of each function and field, and of each module and guide on the index
    for summary in html:gmatch('<td class="summary">(.-)</td>') do
      local text = text_of(summary)
      if M.cut_summary(text) then
        faults[#faults + 1] = ("%s: the summary '%s' is cut short (LDoc ends it at the first '. ')"):format(page, text)
      end
      if page == dir .. "/index.html" and text:match("^%s*$") then
        faults[#faults + 1] = ("%s: a row of the index has no summary"):format(page)
      end
    end
    if html:find("<code>[^<]*<em>") then
      faults[#faults + 1] = ("%s: emphasis inside code (a `*` in a code span that markdown took)"):format(page)
    end
  end
  table.sort(faults)
  return faults, pages
end

--- The faults of the reference under `dir` against the sources under `root`: every public module
-- has its page, with a summary; no internal module has one; no page is of a module no source
-- declares.
function M.module_faults(dir, root, pages)
  local faults = {}
  local declared = M.declared_modules(root)
  local documented = {}
  for _, kind in ipairs { "modules", "classes" } do
    for _, page in ipairs(files(dir .. "/" .. kind, ".html")) do
      documented[page:match("([^/]+)%.html$")] = page
    end
  end
  local all = {}
  for name in pairs(declared) do all[#all + 1] = name end
  table.sort(all)
  for _, name in ipairs(all) do
    if M.is_internal(name) and documented[name] then
      faults[#faults + 1] = ("%s is internal (INTERNAL in tools/docs.lua) but has a page in the reference: %s")
        :format(name, documented[name])
    elseif not M.is_internal(name) and not documented[name] then
      faults[#faults + 1] = ("%s (%s) is public but the reference has no page for it (config.ld)"):format(name,
        declared[name])
    end
  end
  for name, page in pairs(documented) do
    if not declared[name] then
      faults[#faults + 1] = ("%s: a page of the reference that no source declares"):format(page)
    elseif not (pages[page] or read(page) or ""):find('<h1>%a+ <code>' .. name:gsub("%p", "%%%0")
      .. '</code></h1>%s*<p>[^<%s]') then
      faults[#faults + 1] = ("%s: the page of %s has no summary"):format(page, name)
    end
  end
  table.sort(faults)
  return faults
end

--- All the faults of the reference under `dir` (LDoc's output, finished): page_faults, then
-- module_faults against the sources under `root` (default ".").
function M.check(dir, root)
  local faults, pages = M.page_faults(dir)
  for _, f in ipairs(M.module_faults(dir, root, pages)) do faults[#faults + 1] = f end
  return faults
end

-- ---- the command ---------------------------------------------------------------------------------

--- The markdown files whose links are checked: README.md, manual/*.md, examples/README.md.
function M.markdown_files(root)
  root = root or "."
  local out = { "README.md" }
  for _, f in ipairs(files(root .. "/manual", ".md")) do out[#out + 1] = f:sub(#root + 2) end
  if exists(root .. "/examples/README.md") then out[#out + 1] = "examples/README.md" end
  return out
end

--- The faults of the sources alone: links of the markdown files, guides without a summary, and
-- the module split against config.ld.
function M.source_faults()
  local faults = {}
  for _, file in ipairs(M.markdown_files()) do
    for _, f in ipairs(M.markdown_faults(file)) do faults[#faults + 1] = f end
    if file:match("^manual/") and not M.guide_summary(read(file)) then
      faults[#faults + 1] = file .. ": no one-line summary (<!-- summary: ... --> under its title)"
    end
  end
  for _, f in ipairs((M.source_module_faults())) do faults[#faults + 1] = f end
  return faults
end

local function main(args)
  local faults = M.source_faults()
  if args[1] ~= "--source" then
    local dir = args[1] or "doc"
    for _, f in ipairs(M.finish(dir)) do faults[#faults + 1] = f end
    for _, f in ipairs(M.check(dir)) do faults[#faults + 1] = f end
  end
  if #faults > 0 then
    io.stderr:write(("tools/docs.lua: %d fault%s in the docs:\n"):format(#faults, #faults == 1 and "" or "s"))
    for _, f in ipairs(faults) do io.stderr:write("  ", f, "\n") end
    os.exit(1)
  end
  print(("tools/docs.lua: %s: every link resolves, every public module has its page"):format(args[1] or "doc"))
end

if arg and arg[0] and arg[0]:match("docs%.lua$") then main(arg) end

return M
