; inherits: ecma

; JavaScript parameters (TypeScript wraps them in required_parameter).
(formal_parameters (identifier) @local.definition)
(formal_parameters (assignment_pattern left: (identifier) @local.definition))

; Bases: `class B extends A`: a member of the same name in A is overridden.
(class_heritage (_) @base)
