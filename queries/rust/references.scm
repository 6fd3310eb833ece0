; Uses of names inside a symbol, for its same-file dependencies. A node
; captured as a local definition, ignored or a member is never a plain
; reference, whatever other pattern also captures it.

; `self.x` is a member of the enclosing type; `other.x` is not resolved.
; Rust methods are only ever called: `self.len` is a field, `self.len()` a
; method (a getter of the same name as its field is common).
(field_expression
  value: (self) @receiver.self
  field: (field_identifier) @reference.member.field)
(field_expression
  value: (_) @receiver
  field: (field_identifier) @reference.member.field
  (#not-eq? @receiver "self"))
(call_expression
  function: (field_expression
    field: (field_identifier) @reference.member.call))

; Struct literals and patterns: `P { indent: x }`, `let P { indent: a, .. }`
; name the field `indent` of `P` (`Self { .. }`: the enclosing type's).
(struct_expression
  name: (type_identifier) @receiver.self
  body: (field_initializer_list
    (field_initializer field: (field_identifier) @reference.member.field))
  (#eq? @receiver.self "Self"))
(struct_expression
  name: (_) @receiver
  body: (field_initializer_list
    (field_initializer field: (field_identifier) @reference.member.field))
  (#not-eq? @receiver "Self"))
(struct_pattern
  type: (type_identifier) @receiver.self
  (field_pattern name: (field_identifier) @reference.member.field)
  (#eq? @receiver.self "Self"))
(struct_pattern
  type: (_) @receiver
  (field_pattern name: (field_identifier) @reference.member.field)
  (#not-eq? @receiver "Self"))

; Paths: `Self::x` is the enclosing type's; `Point::new`, `Error::Io` and
; `io::Error` name a member of what precedes them.
(scoped_identifier
  path: (identifier) @receiver.self
  name: (identifier) @reference.member
  (#eq? @receiver.self "Self"))
(scoped_identifier
  path: (_) @receiver
  name: (identifier) @reference.member
  (#not-eq? @receiver "Self"))
(scoped_type_identifier
  path: (_) @receiver
  name: (type_identifier) @reference.member)

; Parameters and local bindings.
(parameter pattern: (identifier) @local.definition)
(closure_parameters (identifier) @local.definition)
(closure_parameters (parameter pattern: (identifier) @local.definition))
(let_declaration pattern: (identifier) @local.definition)
(let_declaration pattern: (tuple_pattern (identifier) @local.definition))
(let_declaration pattern: (mut_pattern (identifier) @local.definition))
(for_expression pattern: (identifier) @local.definition)
(for_expression pattern: (tuple_pattern (identifier) @local.definition))
(tuple_pattern (identifier) @local.definition)
(shorthand_field_identifier) @ignore

; Where local bindings are visible.
(function_item) @local.scope
(closure_expression) @local.scope
(block) @local.scope

; Everything else named is a use.
(macro_invocation macro: (identifier) @reference.macro)
(call_expression function: (identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference

; Inside macro arguments and bodies (token trees): `self.x` and `A::b`.
(token_tree
  (self) @receiver.self
  .
  "."
  .
  (identifier) @reference.member)
(token_tree
  (identifier) @receiver
  .
  "::"
  .
  (identifier) @reference.member)
; Any other `.name` in a token tree (`assert_eq!(a.area(), 1)`, a macro
; body's `$s.area()`): a member of something no query reads there, so
; undecided (it was a bare name, left alone, and renames missed it: heck's
; `$s1.to_kebab_case()`, BENCHMARKS.md session 25). `self.x` above keeps
; its receiver.
(token_tree
  "."
  .
  (identifier) @reference.member)

; Bases: `impl Trait for T` implements the trait: every method in its body
; is the trait's method of that name.
(impl_item trait: (_) @base.whole)

; The type a local is declared with (`x: Foo`, `x: &mut Foo<T>`): one named
; type only, so `x.m()` is `Foo`'s member.
(parameter pattern: (identifier) @local.definition
  type: [(type_identifier) (generic_type)] @local.type)
(parameter pattern: (identifier) @local.definition
  type: (reference_type type: [(type_identifier) (generic_type)] @local.type))
(let_declaration pattern: (identifier) @local.definition
  type: [(type_identifier) (generic_type)] @local.type)
(let_declaration pattern: (identifier) @local.definition
  type: (reference_type type: [(type_identifier) (generic_type)] @local.type))
