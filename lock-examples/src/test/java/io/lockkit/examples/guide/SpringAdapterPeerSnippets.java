package io.lockkit.examples.guide;

import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The beans docs/spring-adapters.md replaces: Spring Integration's Redis and JDBC registries and
 * ShedLock's Redis and JDBC providers, compiled against those libraries (lock-examples' test
 * dependencies) so the page cannot show an API they do not have. Nothing here runs, as in
 * {@link MigrationPeerSnippets}.
 */
final class SpringAdapterPeerSnippets {

    // spring-adapters:before-redis-registry-begin
    @Bean
    RedisLockRegistry lockRegistry(RedisConnectionFactory connectionFactory) {
        return new RedisLockRegistry(connectionFactory, "orders");
    }
    // spring-adapters:before-redis-registry-end

    // spring-adapters:before-jdbc-registry-begin
    @Bean
    JdbcLockRegistry lockRegistry(DataSource dataSource) {
        return new JdbcLockRegistry(new DefaultLockRepository(dataSource));
    }
    // spring-adapters:before-jdbc-registry-end

    // spring-adapters:before-shedlock-redis-begin
    @Bean
    LockProvider lockProvider(RedisConnectionFactory connectionFactory) {
        return new RedisLockProvider(connectionFactory, "prod");
    }
    // spring-adapters:before-shedlock-redis-end

    // spring-adapters:before-shedlock-jdbc-begin
    @Bean
    LockProvider lockProvider(DataSource dataSource) {
        return new JdbcTemplateLockProvider(dataSource); // its "shedlock" table
    }
    // spring-adapters:before-shedlock-jdbc-end
}
