-- busted output handler: busted's plain terminal output, then one line
-- "<interpreter>: N passed, M failed" (errors count as failed) that tools/test.sh adds up. Under
-- LuaJIT the interpreter is named with the path the suite took: "luajit-ffi" or "luajit-c" (SINEW_FFI=0).
-- With SINEW_VERBOSE=1, the figures the specs measured (spec/support/figures.lua) follow that line.
return function(options)
  local busted = require "busted"
  local figures = require "spec.support.figures"
  local handler = require "busted.outputHandlers.plainTerminal"(options)
  local interpreter = rawget(_G, "jit") and "luajit" or _VERSION:gsub("Lua ", "lua")

  busted.subscribe({ "suite", "end" }, function()
    local failed = handler.failuresCount + handler.errorsCount
    if interpreter == "luajit" then -- spec/ffi_spec.lua checks that the path is the one named
      interpreter = os.getenv("SINEW_FFI") == "0" and "luajit-c" or "luajit-ffi"
    end
    io.write(("%s: %d passed, %d failed\n"):format(interpreter, handler.successesCount, failed))
    if os.getenv("SINEW_VERBOSE") == "1" and #figures.lines > 0 then
      io.write("figures the specs measured:\n", table.concat(figures.lines, "\n"), "\n")
    end
    io.flush()
    return nil, true
  end)
  return handler
end
