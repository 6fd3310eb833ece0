; `use` declarations and the names they bind.

; use a::b::C;  use C;
(use_declaration
  argument: (scoped_identifier name: (identifier) @name)) @import
(use_declaration
  argument: (identifier) @name) @import

; use a::b as c;
(use_declaration
  argument: (use_as_clause alias: (identifier) @name)) @import

; use a::{b, c::d, e as f};  (nested lists too)
(use_declaration
  (_ (use_list (identifier) @name))) @import
(use_declaration
  (_ (use_list (scoped_identifier name: (identifier) @name)))) @import
(use_declaration
  (_ (use_list (use_as_clause alias: (identifier) @name)))) @import
(use_declaration
  argument: (use_list (identifier) @name)) @import
(use_declaration
  (_ (use_list (scoped_use_list (use_list (identifier) @name))))) @import
(use_declaration
  (_ (use_list (scoped_use_list (use_list (scoped_identifier name: (identifier) @name)))))) @import

(extern_crate_declaration
  name: (identifier) @name) @import
(extern_crate_declaration
  alias: (identifier) @name) @import

; use a::b::*;  (a glob: it binds no name of its own)
(use_declaration
  argument: (use_wildcard)) @import
