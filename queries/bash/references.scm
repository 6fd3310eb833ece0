; Uses of names inside a Bash symbol, for its dependencies, references and
; rename. A node captured as a local definition or ignored is never a plain
; reference. Bash scopes are dynamic (a `local` is seen by the functions
; its function calls): only the lexical part is proven here, and any other
; word of the same spelling (`trap cleanup EXIT`, `"$@"`-built commands) is
; left undecided, so a rename that would need it is refused.

; `local x`, `declare x` inside a function: the function's own variable.
(function_definition
  body: (_
    (declaration_command
      (variable_assignment name: (variable_name) @local.definition))))
(function_definition
  body: (_
    (declaration_command
      (variable_name) @local.definition)))
(function_definition) @local.scope

; Loop variables of `for x in ...` bind the name globally: a use.
(for_statement variable: (variable_name) @reference)

; A command's name: a call of a function (or a program of that name).
(command name: (command_name (word) @reference.call))

; Variables read (`$x`, `${x}`, `$((x + 1))`) and written (`x=1`).
(variable_name) @reference

; Arithmetic (`(( i < MAX ))`, `$(( n * 2 ))`, `for ((i = 0; i < n; i++))`)
; reads bare words as variables.
(arithmetic_expansion (_ (word) @reference))
(c_style_for_statement (_ (word) @reference))
(c_style_for_statement (_ (_ (word) @reference)))

; Any other word may name a function or variable (`trap cleanup EXIT`,
; `export -f helper`, `[[ -v NAME ]]`, `"$cmd" args`): undecided.
(word) @reference.maybe
