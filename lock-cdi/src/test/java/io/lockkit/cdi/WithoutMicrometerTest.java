package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("an application without Micrometer and lock-micrometer")
class WithoutMicrometerTest {

    @Test
    @DisplayName("starts and runs @Locked methods")
    void lockedWorksWithoutMicrometer() throws Exception {
        List<URL> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String normalized = entry.replace('\\', '/');
            if (normalized.contains("lock-micrometer") || normalized.contains("/io/micrometer/")) {
                continue; // the application's class path lacks Micrometer and lockkit's binder
            }
            classPath.add(new File(entry).toURI().toURL());
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader application =
                new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(application);
            assertThatThrownBy(() -> application.loadClass("io.micrometer.core.instrument.MeterRegistry"))
                    .isInstanceOf(ClassNotFoundException.class);
            @SuppressWarnings("unchecked")
            Callable<String> run = (Callable<String>) application
                    .loadClass(LockedCall.class.getName())
                    .getDeclaredConstructor()
                    .newInstance();
            assertThat(run.call()).isEqualTo("user:u1");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** Runs inside the class loader without Micrometer: starts CDI and makes a @Locked call. */
    public static class LockedCall implements Callable<String> {
        @Override
        public String call() {
            Lockkit.useConfig(Map.of("lockkit.provider", "local"));
            try {
                var app = Lockkit.start("without-micrometer", LockUser.class);
                try {
                    return app.select(LockUser.class).get().locked("u1").name();
                } finally {
                    app.close();
                }
            } finally {
                Lockkit.clearConfig();
            }
        }
    }
}
