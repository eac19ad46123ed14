package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("an application without Jakarta REST")
class WithoutJakartaRestTest {

    @Test
    @DisplayName("starts and runs @Locked methods, though lock-cdi's jar holds the REST exception mappers")
    void startsWithoutJakartaRest() throws Exception {
        List<URL> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.replace('\\', '/').contains("jakarta.ws.rs-api")) {
                continue; // the application's class path lacks Jakarta REST
            }
            classPath.add(new File(entry).toURI().toURL());
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        String before = System.getProperty("lockkit.provider");
        System.setProperty("lockkit.provider", "local");
        try (URLClassLoader application =
                new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThat(application.getResource("jakarta/ws/rs/ext/ExceptionMapper.class"))
                    .isNull();
            assertThat(application.getResource("io/lockkit/cdi/rest/BackendUnavailableMapper.class"))
                    .as("the mappers are there all the same")
                    .isNotNull();
            Thread.currentThread().setContextClassLoader(application);
            @SuppressWarnings("unchecked")
            Callable<String> start = (Callable<String>) application
                    .loadClass(StartWithoutJakartaRest.class.getName())
                    .getDeclaredConstructor()
                    .newInstance();
            assertThat(start.call()).isEqualTo("locked user:1; skipped: null");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
            if (before == null) {
                System.clearProperty("lockkit.provider");
            } else {
                System.setProperty("lockkit.provider", before);
            }
        }
    }

    /**
     * Runs inside the class loader without Jakarta REST: starts CDI and calls {@code @Locked}
     * methods. On Weld with bean discovery on, as an application does, so that the container scans
     * lock-cdi's classes, the mappers' package too (without Jandex, Weld loads each class to read
     * its annotations). OpenWebBeans discovers the whole test class path there, whose Narayana
     * beans clash: it runs the deployment of the other tests.
     */
    public static class StartWithoutJakartaRest implements Callable<String> {
        @Override
        public String call() throws Exception {
            SeContainer container = Lockkit.OPENWEBBEANS
                    ? Lockkit.start("without-rest", LockUser.class, BusyWork.class)
                    : SeContainerInitializer.newInstance()
                            .addBeanClasses(LockUser.class, BusyWork.class)
                            .initialize();
            try {
                String name = container.select(LockUser.class).get().locked("1").name();
                Object skipped;
                try (LockHandle busy =
                        container.select(LockUser.class).get().locks().acquire(BusyWork.LOCK, LockOptions.noWait())) {
                    skipped = container.select(BusyWork.class).get().skipValue();
                }
                return "locked " + name + "; skipped: " + skipped;
            } finally {
                container.close();
            }
        }
    }
}
