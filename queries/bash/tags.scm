; Bash definitions: functions in both syntaxes (`f() { .. }`,
; `function f { .. }`, any body: `{ }`, `( )`, `[[ ]]`), and the variables a
; script sets at its top level (plain assignments and `declare`, `typeset`,
; `export`, `readonly`). Assignments inside functions and control flow are
; not listed. When two patterns capture the same @name node, the earlier
; pattern wins.

(function_definition
  name: (word) @name) @definition.function

; `readonly X=1`, `declare -r X=1`: constants.
(program
  (declaration_command
    "readonly"
    (variable_assignment
      name: (variable_name) @name)) @definition.constant)
((program
  (declaration_command
    (word) @_flag
    (variable_assignment
      name: (variable_name) @name)) @definition.constant)
  (#match? @_flag "^-[a-zA-Z]*r"))

(program
  (declaration_command
    (variable_assignment
      name: (variable_name) @name)) @definition.variable)
; `declare -A MAP` declares without a value; `export X` and `readonly X`
; without one only change an existing variable's attributes.
(program
  (declaration_command
    ["declare" "typeset"]
    (variable_name) @name) @definition.variable)

(program
  (variable_assignment
    name: (variable_name) @name) @definition.variable)
; `A=1 B=2`: one statement, two variables.
(program
  (variable_assignments
    (variable_assignment
      name: (variable_name) @name) @definition.variable))
