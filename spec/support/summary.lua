-- busted output handler: busted's plain terminal output, then one line
-- "<interpreter>: N passed, M failed" (errors count as failed) that tools/test.sh adds up.
return function(options)
  local busted = require "busted"
  local handler = require "busted.outputHandlers.plainTerminal"(options)
  local interpreter = rawget(_G, "jit") and "luajit" or _VERSION:gsub("Lua ", "lua")

  busted.subscribe({ "suite", "end" }, function()
    local failed = handler.failuresCount + handler.errorsCount
    io.write(("%s: %d passed, %d failed\n"):format(interpreter, handler.successesCount, failed))
    io.flush()
    return nil, true
  end)
  return handler
end
