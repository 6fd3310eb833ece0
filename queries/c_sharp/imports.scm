; `using System.Text;` brings a namespace's types in unnamed (like a glob
; import); `using Money = System.Decimal;` binds `Money`; `using static
; System.Math;` brings the members of a type in unnamed.
(using_directive
  name: (identifier) @name) @import
(using_directive
  [(identifier) (qualified_name)]) @import
