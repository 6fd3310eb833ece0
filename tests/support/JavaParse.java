// The judge of edited Java files in tests/trust.rs: javac's own parser
// (the compiler tree API, no classpath, no annotation processing, no
// attribution), run as `java JavaParse.java` with one path per line on
// stdin. Prints `path | message` for the first syntax error of each file
// it rejects.
import com.sun.source.util.JavacTask;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.util.List;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavaParse {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String path;
        while ((path = in.readLine()) != null) {
            if (path.isEmpty()) {
                continue;
            }
            DiagnosticCollector<JavaFileObject> found = new DiagnosticCollector<>();
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromFiles(List.of(new File(path)));
            JavacTask task = (JavacTask) compiler.getTask(null, files, found, List.of("-proc:none"), null, units);
            task.parse();
            for (Diagnostic<? extends JavaFileObject> d : found.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    System.out.println(path + " | " + d.getLineNumber() + ": " + d.getMessage(null).replace('\n', ' '));
                    break;
                }
            }
        }
    }
}
