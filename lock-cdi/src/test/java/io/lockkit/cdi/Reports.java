package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The store {@link ReportScheduler} writes to, shared by every instance (container) of a test. */
@ApplicationScoped
public class Reports {

    /** The terms that wrote, in order, across every container. */
    static final List<Long> WRITES = new CopyOnWriteArrayList<>();

    public void write(long term) {
        WRITES.add(term);
    }
}
