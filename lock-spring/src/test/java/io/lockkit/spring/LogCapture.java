package io.lockkit.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The messages logged to a java.util.logging logger (where System.Logger writes) while it is open. */
final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    LogCapture(String loggerName) {
        this.logger = Logger.getLogger(loggerName);
        logger.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        String message = record.getMessage();
        Object[] parameters = record.getParameters();
        if (parameters != null) {
            message = java.text.MessageFormat.format(message, parameters);
        }
        messages.add(message);
    }

    List<String> messages() {
        return messages;
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
