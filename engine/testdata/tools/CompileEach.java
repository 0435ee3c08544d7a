// CompileEach compiles each Java source file given on its own, in one JVM
// (javax.tools), at the release given first: java CompileEach.java RELEASE
// OUTDIR FILE... It prints one line per file, "ok FILE" or "error FILE"
// followed by javac's diagnostics, and exits 1 if any file failed. The engine's
// modern-fixture test uses it so that 28 compiles cost one JVM start, not 28.
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public class CompileEach {
    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String release = args[0];
        Path out = Path.of(args[1]);
        boolean failed = false;
        for (int i = 2; i < args.length; i++) {
            Path dir = Files.createDirectories(out.resolve(Integer.toString(i)));
            StringWriter diags = new StringWriter();
            var files = javac.getStandardFileManager(null, null, null).getJavaFileObjects(args[i]);
            boolean ok = javac.getTask(diags, null, null,
                    List.of("--release", release, "-proc:none", "-d", dir.toString()), null, files).call();
            System.out.println((ok ? "ok " : "error ") + args[i]);
            if (!ok) {
                System.out.println(diags);
                failed = true;
            }
        }
        System.exit(failed ? 1 : 0);
    }
}
