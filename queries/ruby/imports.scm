; `require "json"`, `require_relative "support/money"`, `load "x.rb"`: the
; loaded file's definitions come in unnamed (like a glob import).
((call
  method: (identifier) @_load
  arguments: (argument_list (string))) @import
  (#any-of? @_load "require" "require_relative" "load" "autoload"))
