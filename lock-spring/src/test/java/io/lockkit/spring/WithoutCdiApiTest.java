package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("a Spring application uses @Locked without any CDI or interceptor API jar")
class WithoutCdiApiTest {

    @Test
    @DisplayName("no jakarta.enterprise, jakarta.interceptor or jakarta.inject class is visible to these tests")
    void noCdiApiOnTheClassPath() {
        for (String api : List.of(
                "jakarta.interceptor.InterceptorBinding",
                "jakarta.enterprise.util.Nonbinding",
                "jakarta.inject.Inject",
                "jakarta.enterprise.context.ApplicationScoped")) {
            assertThat(present(api)).as(api).isFalse();
        }
    }

    @Test
    @DisplayName("an application's @Locked bean compiles with -Xlint:all -Werror against lock-cdi's annotations alone")
    void lockedBeanCompilesWithAllLintWarningsAsErrors(@TempDir Path dir) throws IOException {
        Path source = dir.resolve("Shipping.java");
        Files.writeString(
                source,
                String.join(
                        "\n",
                        "import io.lockkit.cdi.Locked;",
                        "import io.lockkit.cdi.LockMode;",
                        "import io.lockkit.cdi.WhenBusy;",
                        "public class Shipping {",
                        "    @Locked(value = \"order-{0}\", mode = LockMode.WRITE, whenBusy = WhenBusy.SKIP, waitTime = 0)",
                        "    public void ship(String order) {}",
                        "}"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter output = new StringWriter();
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("jakarta"))
                .reduce((a, b) -> a + File.pathSeparator + b)
                .orElseThrow();
        boolean compiled = javac.getTask(
                        output,
                        null,
                        null,
                        List.of("-Xlint:all", "-Werror", "-proc:none", "-classpath", classPath, "-d", dir.toString()),
                        null,
                        javac.getStandardFileManager(null, null, null).getJavaFileObjects(source.toFile()))
                .call();
        assertThat(compiled).as(output.toString()).isTrue();
        assertThat(output.toString()).isEmpty();
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, WithoutCdiApiTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
