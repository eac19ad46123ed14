package io.lockkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records what one logger receives, at every level, until closed (the core logs through
 * System.Logger, which java.util.logging serves in tests); closing restores the logger's level.
 */
final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final Level levelBefore;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    /** Starts recording the logger named after {@code source}, as the core's classes name theirs. */
    LogCapture(Class<?> source) {
        logger = Logger.getLogger(source.getName());
        levelBefore = logger.getLevel();
        logger.setLevel(Level.ALL);
        handler.setLevel(Level.ALL);
        logger.addHandler(handler);
    }

    /** Everything recorded so far. */
    List<LogRecord> records() {
        return records;
    }

    /** What was recorded at {@code level}. */
    List<LogRecord> atLevel(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(levelBefore);
    }
}
