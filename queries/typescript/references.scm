; inherits: ecma

; `Config.Options` in a type names a member of `Config`.
(nested_type_identifier
  module: (_) @receiver
  name: (type_identifier) @reference.member)

; TypeScript parameters (with types, defaults, `private` properties).
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)

(type_identifier) @reference.type

; Bases: `class B extends A implements I`, `interface K extends L`: a member
; of the same name in one is overridden or implemented.
(extends_clause value: (_) @base)
(implements_clause (_) @base)
(extends_type_clause type: (_) @base)
