; Import specs and the names they bind. `import f "fmt"` binds `f`; a plain
; `import "container/list"` binds the package's own name, which only the
; package knows (no node spells it): it is read as a glob of that path, as
; is `import . "x"`. `import _ "x"` binds nothing.
(import_spec
  name: (package_identifier) @name) @import
(import_spec
  !name) @import
(import_spec
  name: (dot)) @import
