package io.lockkit.jdbc;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-jdbc, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-jdbc architecture")
class JdbcArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(
                    JdbcLockProvider.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    @DisplayName("lock-jdbc does not use redis.clients")
    void usesNoRedisClient() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("redis.clients..")
                .because("only lock-jedis talks to Redis through Jedis")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-jdbc does not use lock-jedis at all")
    void usesNoJedisProvider() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lockkit.jedis..")
                .because("the two backends are independent of each other")
                .check(MAIN);
    }

    @Test
    @DisplayName(
            "JdbcLockProvider stays within 450 lines: the dialects, statements and calls live in their own classes")
    void theProviderStaysSmall() throws java.io.IOException {
        java.nio.file.Path source = java.nio.file.Path.of("src/main/java/io/lockkit/jdbc/JdbcLockProvider.java");
        org.assertj.core.api.Assertions.assertThat(java.nio.file.Files.readAllLines(source))
                .as(source.toString())
                .hasSizeLessThanOrEqualTo(450);
    }

    @Test
    @DisplayName("lock-jdbc uses no other module's internal package")
    void usesNoOtherModulesInternals() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.lockkit..internal..")
                        .and(resideOutsideOfPackage("io.lockkit.jdbc.internal..")))
                .because("a module's internal package is its own business")
                .check(MAIN);
    }
}
