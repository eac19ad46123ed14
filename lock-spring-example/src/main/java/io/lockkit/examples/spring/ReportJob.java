package io.lockkit.examples.spring;

import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A report that every instance schedules every two seconds and one instance runs per tick: the
 * others find its lock held and skip. Each run is journalled with the instance, the time and the
 * fencing token, in the files the instances share.
 */
// Design notes.
// - One lock name for every tick, held for at least 1.5 s of the 2 s period: a call of the same tick
//   on another instance that comes up to 1.5 s after the run began finds it held and skips, and the
//   next tick's calls find it free unless this run began more than 0.5 s after its tick.
// - The unlocked twin, call(), journals every call of every instance: the negative control of
//   SpringExampleIT (two calls per tick), and its evidence that both instances were scheduling.
@Component
public class ReportJob {

    private final SharedFiles files;
    private final Instance instance;

    public ReportJob(SharedFiles files, Instance instance) {
        this.files = files;
        this.instance = instance;
    }

    @Scheduled(cron = "*/2 * * * * *")
    @Locked(
            value = "report",
            waitTime = 0,
            whenBusy = WhenBusy.SKIP,
            holdAtLeast = 1500,
            holdAtLeastUnit = ChronoUnit.MILLIS)
    public void report() {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        files.journal(instance.name(), "run", System.currentTimeMillis(), token);
    }

    /** The report's schedule without the lock: every call of every instance. */
    @Scheduled(cron = "*/2 * * * * *")
    public void call() {
        files.journal(instance.name(), "call", System.currentTimeMillis(), 0);
    }

    /** Journals that this instance serves HTTP, and on which port. */
    @EventListener
    public void ready(ApplicationReadyEvent ready) {
        Environment environment = ready.getApplicationContext().getEnvironment();
        int port = environment.getProperty("local.server.port", Integer.class, -1);
        files.journal(instance.name(), "ready", System.currentTimeMillis(), port);
    }
}
