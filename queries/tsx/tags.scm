; inherits: ecma, typescript-shared
