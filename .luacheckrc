std = "max"
max_line_length = 130
files["spec"] = { std = "+busted" }
files["examples/love"] = { globals = { "love" } }
files["spec/love"] = { globals = { "love" } }
exclude_files = { "build", "doc" }
files["spec/love-zip"] = { globals = { "love" } }
files["examples/love2d"] = { globals = { "love" } }
files["lua/sinew/love2d.lua"] = { read_globals = { "love" } }
