package io.lockkit.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-testkit, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-testkit architecture")
class TestkitArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(CountingLockProvider.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation());

    @Test
    @DisplayName("lock-testkit does not use redis.clients: the kit knows no backend")
    void usesNoRedisClient() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("redis.clients..")
                .because(
                        "the kit checks providers through the SPI only (its POM bans backend artifacts; the Redis fixture,"
                                + " lock-testkit-redis, speaks RESP itself); only lock-jedis uses Jedis")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-testkit uses no module's internal package")
    void usesNoInternalPackage() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lockkit..internal..")
                .because("the kit holds providers to their published contract only")
                .check(MAIN);
    }
}
