; `source FILE` and `. FILE`: the sourced file's functions and variables
; come into this one's namespace, unnamed (like a glob import).
((command
  name: (command_name (word) @_cmd)
  argument: (_)) @import
  (#any-of? @_cmd "source" "."))
