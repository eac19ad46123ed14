package io.lockkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-api, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-api architecture")
class ApiArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(LockOptions.class.getProtectionDomain().getCodeSource().getLocation());

    /**
     * What the SPI must not lean on: classes of {@code io.lockkit} that are not public (nested ones:
     * all the way out), and concrete classes implementing one of the library's interfaces
     * ({@link LocalLockProvider}, the factory and handle implementations).
     */
    private static final DescribedPredicate<JavaClass> IMPLEMENTATION_OF_IO_LOCKKIT = DescribedPredicate.describe(
            "are implementation classes of io.lockkit (not public, or implementing a lockkit interface)",
            c -> c.getPackageName().equals("io.lockkit")
                    && (!publicAllTheWayOut(c)
                            || (!c.isInterface()
                                    && c.getAllRawInterfaces().stream()
                                            .anyMatch(i -> i.getPackageName().startsWith("io.lockkit")))));

    @Test
    @DisplayName(
            "lock-api uses only the JDK (java.*, and jdk.jfr for its flight-recorder events) and JSpecify's annotations besides its own three packages")
    void usesOnlyTheJdkAndJSpecifyAnnotations() {
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "jdk.jfr..",
                        "org.jspecify.annotations..",
                        "io.lockkit",
                        "io.lockkit.spi",
                        "io.lockkit.spi.support")
                .because(
                        "at run time lock-api needs the JDK only (JSpecify's annotations are optional; jdk.jfr is in every JDK 17+)")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-api does not use redis.clients")
    void usesNoRedisClient() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("redis.clients..")
                .because("only lock-jedis talks to Redis through Jedis")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-api uses no module's internal package")
    void usesNoInternalPackage() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lockkit..internal..")
                .because("a module's internal package is its own business")
                .check(MAIN);
    }

    @Test
    @DisplayName("io.lockkit.spi uses io.lockkit only through its public API, never its implementation classes")
    void spiUsesNoImplementationClassOfTheCallerApi() {
        noClasses()
                .that()
                .resideInAPackage("io.lockkit.spi..")
                .should()
                .dependOnClassesThat(IMPLEMENTATION_OF_IO_LOCKKIT)
                .because("a provider implements the SPI against the published API alone")
                .check(MAIN);
    }

    private static boolean publicAllTheWayOut(JavaClass c) {
        for (Optional<JavaClass> k = Optional.of(c); k.isPresent(); k = k.get().getEnclosingClass()) {
            if (!k.get().getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }
}
