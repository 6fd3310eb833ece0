; Uses of names inside a symbol, for its same-file dependencies (shared by
; JavaScript, TypeScript and TSX). A node captured as a local definition,
; ignored or a member is never a plain reference.

; `this.x` is a member of the enclosing class (and `super.x` of its bases);
; any other receiver (`response.close()`) is not resolved through the file.
(member_expression
  object: (this) @receiver.self
  property: [(property_identifier) (private_property_identifier)] @reference.member)
(member_expression
  object: (super) @receiver.super
  property: [(property_identifier) (private_property_identifier)] @reference.member)
(member_expression
  object: (_) @receiver
  property: [(property_identifier) (private_property_identifier)] @reference.member
  (#not-any-of? @receiver "this" "super"))

; `obj["name"]` names a member by a string key, as `obj.name` does: a
; rename that left it behind would break the access.
(subscript_expression
  object: (this) @receiver.self
  index: (string (string_fragment) @reference.member))
(subscript_expression
  object: (_) @receiver
  index: (string (string_fragment) @reference.member)
  (#not-any-of? @receiver "this"))

; Parameters and local bindings.
(arrow_function parameter: (identifier) @local.definition)
(variable_declarator name: (identifier) @local.definition)
(object_pattern (shorthand_property_identifier_pattern) @local.definition)
(array_pattern (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(for_in_statement left: (identifier) @local.definition)

; Where local bindings are visible.
(function_declaration) @local.scope
(generator_function_declaration) @local.scope
(function_expression) @local.scope
(arrow_function) @local.scope
(method_definition) @local.scope
(statement_block) @local.scope
(for_statement) @local.scope
(for_in_statement) @local.scope

; Everything else named is a use.
(call_expression function: (identifier) @reference.call)
(shorthand_property_identifier) @reference
(identifier) @reference
