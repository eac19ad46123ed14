package io.lockkit.spring.internal;

import io.lockkit.spi.ProviderEnvironment;
import java.util.Optional;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;

/**
 * What a Spring application offers the provider lockkit builds: its beans. The application's
 * {@code DataSource} bean (the {@code @Primary} one among several) is the JDBC provider's default,
 * and {@code lockkit.jdbc.datasource} names another bean. The provider keeps its own threads.
 */
// Design notes.
// - No transaction suspension (outsideTransactions keeps the provider as it is): Boot's DataSource
//   hands out plain connections, which Spring's transactions do not enlist; only a
//   TransactionAwareDataSourceProxy would, and such a bean is not for the lock table.
final class SpringProviderEnvironment implements ProviderEnvironment {

    private final BeanFactory beans;

    SpringProviderEnvironment(BeanFactory beans) {
        this.beans = beans;
    }

    /** The bean named {@code name}, which must be a {@code type}. */
    @Override
    public <T> Optional<T> resource(Class<T> type, String name) {
        try {
            return Optional.of(beans.getBean(name, type));
        } catch (NoSuchBeanDefinitionException e) {
            throw new IllegalStateException("no bean named '" + name + "' of type " + type.getName(), e);
        } catch (BeansException e) {
            throw new IllegalStateException("the bean '" + name + "': " + e.getMessage(), e);
        }
    }

    /** The application's one bean of {@code type} (or its {@code @Primary} one); several are an error naming them. */
    @Override
    public <T> Optional<T> defaultInstance(Class<T> type) {
        try {
            return Optional.ofNullable(beans.getBeanProvider(type).getIfAvailable());
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException(
                    "several " + type.getName() + " beans: " + e.getBeanNamesFound() + "; mark one @Primary", e);
        }
    }
}
