-- The markdown formatter of `make docs` (config.ld: format = "tools.ldoc_markdown"): discount, as
-- LDoc's own "discount" format uses it, except that the code spans LDoc has already turned into
-- <code> elements keep their asterisks. LDoc replaces `...` by <code>...</code> (or a link into the
-- reference) before discount sees the text, and discount then reads `src/core/*.c src/binding/*.c`
-- as emphasis; an asterisk written as &#42; inside <code> shows the same and is not markup.
local discount = require "discount"

local render = type(discount) == "function" and discount or discount.compile or discount.to_html

local function keep(code) return (code:gsub("%*", "&#42;")) end

return function(text)
  text = text:gsub("(<code>)(.-)(</code>)", function(open, code, close) return open .. keep(code) .. close end)
  local html, err = render(text)
  if type(html) == "table" then html = html.body end
  if not html then error("discount failed: " .. tostring(err)) end
  return html
end
