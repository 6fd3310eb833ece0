; inherits: ecma

; JavaScript parameters (TypeScript wraps them in required_parameter).
(formal_parameters (identifier) @local.definition)
(formal_parameters (assignment_pattern left: (identifier) @local.definition))
