package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.inject.build.compatible.spi.BeanInfo;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticComponents;
import jakarta.enterprise.inject.build.compatible.spi.Validation;

/**
 * {@link LockkitExtension}, method for method, as a build compatible extension Weld's translator
 * runs: it skips every one marked {@code @SkipIfPortableExtensionPresent} (Weld always has the
 * portable one) and reads only the extension class's declared methods, so a subclass would not do.
 * {@code OneWalkTest} checks that this class declares exactly the extension's methods.
 */
public class UnskippedLockkitExtension implements BuildCompatibleExtension {

    private final LockkitExtension extension = new LockkitExtension();

    @Discovery
    public void addHealthCheck(ScannedClasses scan) {
        extension.addHealthCheck(scan);
    }

    @Registration(types = DistributedLockFactory.class)
    public void findFactories(BeanInfo bean) {
        extension.findFactories(bean);
    }

    @Registration(types = LockProvider.class)
    public void findProviders(BeanInfo bean) {
        extension.findProviders(bean);
    }

    @Registration(types = Object.class)
    public void checkLockedMethods(BeanInfo bean) {
        extension.checkLockedMethods(bean);
    }

    @Validation
    public void report(Messages messages) {
        extension.report(messages);
    }

    @Registration(types = Object.class)
    public void findLeaderships(BeanInfo bean) {
        extension.findLeaderships(bean);
    }

    @Synthesis
    public void addLeaderships(SyntheticComponents components) {
        extension.addLeaderships(components);
    }

    @Synthesis
    public void addFactory(SyntheticComponents components, Messages messages) {
        extension.addFactory(components, messages);
    }
}
