-- Runs busted under whichever interpreter runs this file: `lua5.3 spec/run.lua`.
-- Options come from .busted; spec/helper.lua finds build/<interpreter>/sinew/core.so.
require "busted.runner"({ standalone = false })
