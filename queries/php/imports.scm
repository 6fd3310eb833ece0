; `use A\B\C;`, `use A\B\C as D;`, `use function A\f;`, `use const A\X;`:
; each binds its last segment or its alias.
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name
      (name) @name) .)) @import
(namespace_use_declaration
  (namespace_use_clause
    (name) @name .)) @import
(namespace_use_declaration
  (namespace_use_clause
    alias: (name) @name)) @import

; `require 'x.php'`, `include_once __DIR__ . '/y.php'`: the file's
; definitions come in unnamed (like a glob import).
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import
