package io.lockkit.cdi.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("parameter names at run time: the class file's MethodParameters, not its debug information")
class ClassFilesTest {

    @Test
    @DisplayName("a class compiled with debug information but without -parameters has no run-time names")
    void debugInformationIsNotEnough(@TempDir Path dir) throws IOException {
        compile(dir, "WithDebugOnly", "-g");
        compile(dir, "WithParameters", "-parameters");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            assertThat(ClassFiles.hasMethodParameters("generated.WithDebugOnly", loader))
                    .contains(false);
            assertThat(ClassFiles.hasMethodParameters("generated.WithParameters", loader))
                    .contains(true);
            assertThat(ClassFiles.hasMethodParameters("generated.Missing", loader))
                    .isEmpty();
        }
    }

    @Test
    @DisplayName(
            "the library's own classes, compiled with -parameters, are recognised (long and double constants included)")
    void ownClassesAreRecognised() {
        assertThat(ClassFiles.hasMethodParameters(LockkitConfig.class.getName(), ClassFilesTest.class.getClassLoader()))
                .isEqualTo(Optional.of(true));
    }

    private static void compile(Path dir, String name, String option) throws IOException {
        Path source = dir.resolve("src-" + name + "/generated/" + name + ".java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                package generated;

                public class %s {
                    static final long BIG = 1L << 40;
                    static final double HALF = 0.5;

                    public long ship(long orderId, String note) {
                        return orderId + BIG + (long) HALF + note.length();
                    }
                }
                """.formatted(name));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac.run(null, null, null, "-proc:none", option, "-d", dir.toString(), source.toString()))
                .as("javac exit status")
                .isZero();
    }
}
