// The Go oracle of benches/lang_symbols.py go: go/parser's reading of each file
// named on stdin, printed as `path<TAB>name path` for what Scalpel lists:
// functions, methods (`Type.Method`, pointer and generic receivers too),
// type specs, fields of struct types and methods of interface types that
// are declared by a type spec, package-level consts and vars. Files the
// parser rejects are printed as `path<TAB>!error`.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

func recv(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recv(t.X)
	case *ast.IndexExpr:
		return recv(t.X)
	case *ast.IndexListExpr:
		return recv(t.X)
	case *ast.ParenExpr:
		return recv(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		path := in.Text()
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Printf("%s\t!error\n", path)
			continue
		}
		out := func(name string) { fmt.Printf("%s\t%s\n", path, name) }
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) > 0 {
					out(recv(d.Recv.List[0].Type) + "." + d.Name.Name)
				} else {
					out(d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out(s.Name.Name)
						var fields *ast.FieldList
						switch t := s.Type.(type) {
						case *ast.StructType:
							fields = t.Fields
						case *ast.InterfaceType:
							fields = t.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								for _, n := range fl.Names {
									out(s.Name.Name + "." + n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							out(n.Name)
						}
					}
				}
			}
		}
	}
}
