package io.lockkit.spring;

import io.lockkit.DistributedLockFactory;
import io.lockkit.spring.internal.LockedAdvisor;
import io.lockkit.spring.internal.LockkitHealthIndicator;
import io.lockkit.spring.internal.SpringLockkit;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * lockkit for a Spring Boot application: a {@link DistributedLockFactory} bean from the
 * {@code lockkit.*} properties (unless the application defines its own), {@code @Locked} and
 * {@code @DistributedBulkhead} on Spring beans, the declared leaderships with their
 * {@link LeadershipGrantedEvent}s and {@link LeadershipRevokedEvent}s, and, with Actuator's health
 * module, the {@code lockkit} health indicator. The provider is chosen as in CDI and Quarkus: the
 * application's {@code LockProvider} bean, else the one {@code lockkit.provider} names ({@code redis}
 * by default), found by {@code ServiceLoader}.
 */
// Design notes.
// - After the DataSource and metrics auto-configurations (by name: Boot 4 and Boot 3.5 keep them
//   in different packages), so that @ConditionalOnMissingBean and the provider's DataSource see
//   the application's beans.
// - The advisor is an infrastructure bean with an explicit order (ADVISOR_ORDER, outside
//   @Transactional's default), made by a static method, so creating it creates no other bean;
//   an auto-proxy creator is registered if the application has none (as @EnableTransactionManagement does).
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@EnableConfigurationProperties(LockkitProperties.class)
@Import(LockkitAutoConfiguration.AutoProxy.class)
public class LockkitAutoConfiguration {

    /**
     * The {@code @Locked} advisor's order: just ahead of {@code @Transactional}'s default
     * ({@link Ordered#LOWEST_PRECEDENCE}), so the lock is taken before the transaction begins and
     * released after it ends. Under a transaction that runs outside it (an order of its own), the
     * release waits for the transaction's completion all the same.
     */
    public static final int ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /** Made by Boot. */
    public LockkitAutoConfiguration() {}

    /** The application's lockkit machinery: configuration, the library's factory, leaderships. */
    @Bean
    public static SpringLockkit lockkit(Environment environment, BeanFactory beans, ApplicationEventPublisher events) {
        return new SpringLockkit(environment, beans, events);
    }

    /**
     * The factory {@code @Locked} uses and applications inject; closed (after its drain) when the
     * context closes.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(DistributedLockFactory.class)
    public DistributedLockFactory lockkitFactory(SpringLockkit lockkit) {
        return lockkit.factoryBean();
    }

    /** The leaderships declared in configuration, by name. */
    @Bean
    @ConditionalOnMissingBean(LockkitLeaderships.class)
    public LockkitLeaderships lockkitLeaderships(SpringLockkit lockkit) {
        return lockkit::leadership;
    }

    /** The {@code @Locked} advisor, at {@link #ADVISOR_ORDER}. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static LockedAdvisor lockkitLockedAdvisor(ObjectProvider<SpringLockkit> lockkit) {
        return new LockedAdvisor(ADVISOR_ORDER, lockkit::getObject);
    }

    /** The health indicator, with Boot's health module. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "lockkitHealthIndicator")
        LockkitHealthIndicator lockkitHealthIndicator(SpringLockkit lockkit) {
            return new LockkitHealthIndicator(lockkit.config(), lockkit::lockedFactory);
        }
    }

    /** Registers Spring's infrastructure auto-proxy creator unless the application has a stronger one. */
    static class AutoProxy implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
