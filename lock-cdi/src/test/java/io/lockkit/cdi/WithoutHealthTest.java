package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.spi.Bean;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("an application without the MicroProfile Health API")
class WithoutHealthTest {

    @Test
    @DisplayName("starts and locks, with no readiness check bean")
    void startsWithoutTheReadinessCheck() throws Exception {
        List<URL> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.replace('\\', '/').contains("microprofile-health")) {
                continue; // the application's class path lacks MicroProfile Health
            }
            classPath.add(new File(entry).toURI().toURL());
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        String before = System.getProperty("lockkit.provider");
        System.setProperty("lockkit.provider", "local");
        try (URLClassLoader application =
                new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThat(application.getResource("org/eclipse/microprofile/health/HealthCheck.class"))
                    .isNull();
            Thread.currentThread().setContextClassLoader(application);
            @SuppressWarnings("unchecked")
            Callable<String> start = (Callable<String>) application
                    .loadClass(StartWithoutHealth.class.getName())
                    .getDeclaredConstructor()
                    .newInstance();
            assertThat(start.call())
                    .startsWith("locked; beans from lock-cdi: [LockFactoryHolder")
                    .doesNotContain("LockkitReadinessCheck");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
            if (before == null) {
                System.clearProperty("lockkit.provider");
            } else {
                System.setProperty("lockkit.provider", before);
            }
        }
    }

    /** Runs inside the class loader without MicroProfile Health: starts CDI, locks, and lists lock-cdi's beans. */
    public static class StartWithoutHealth implements Callable<String> {
        @Override
        public String call() throws Exception {
            SeContainer container = Lockkit.start("without-health", LockUser.class);
            try (LockHandle hold =
                    container.select(LockUser.class).get().locks().acquire("no-health", LockOptions.noWait())) {
                List<String> beans = new ArrayList<>();
                for (Bean<?> bean : container.getBeanManager().getBeans(Object.class, Any.Literal.INSTANCE)) {
                    if (bean.getBeanClass().getName().startsWith("io.lockkit.cdi.internal")) {
                        beans.add(bean.getBeanClass().getSimpleName());
                    }
                }
                beans.sort(null);
                return (hold.isValid() ? "locked" : "not locked") + "; beans from lock-cdi: " + beans;
            } finally {
                container.close();
            }
        }
    }
}
