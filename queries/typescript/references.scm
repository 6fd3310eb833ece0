; inherits: ecma

; `Config.Options` in a type names a member of `Config`.
(nested_type_identifier
  module: (_) @receiver
  name: (type_identifier) @reference.member)

; TypeScript parameters (with types, defaults, `private` properties).
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)

(type_identifier) @reference.type
