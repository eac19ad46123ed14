package io.lockkit.quarkus.internal;

import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * lockkit's start in a Quarkus application: the datasource check, the keys of other providers'
 * sections ({@link OtherProviderKeys}), then lock-cdi's start (the factory built and its backend
 * asked), before every other observer of the Startup event.
 */
// Design notes.
// - First: Quarkus' scheduler starts its jobs at the Startup event, at priority 0 (PLATFORM_BEFORE),
//   and lock-cdi's own start observes it at the default priority, after the scheduler. A @Scheduled
//   @Locked job then ran (and failed with an ERROR) while an unreachable backend kept the start-up
//   check waiting, before the check failed the start. Starting at a priority below 0 fails the start
//   before any job, @Startup bean or application observer runs, and they all find lockkit started.
// - At the Startup event rather than in a RUNTIME_INIT recorder: by then every extension's runtime
//   set-up (the datasources, the meter registries lockkit's meters bind to) is done.
// - lock-cdi's own observer finds the start done and does nothing (LockFactoryHolder).
@Singleton
public class LockkitStartup {

    /** Below Quarkus' lowest platform priority (the scheduler's), so lockkit starts first. */
    static final int PRIORITY = jakarta.interceptor.Interceptor.Priority.PLATFORM_BEFORE - 1000;

    @Inject
    DataSourceCheck dataSources;

    @Inject
    LockFactoryHolder holder;

    void start(@Observes @Priority(PRIORITY) StartupEvent startup) {
        dataSources.check();
        OtherProviderKeys.report(LockkitConfig.load(), LockkitConfig.applicationLoader());
        holder.startBeforeStartupObservers();
    }
}
