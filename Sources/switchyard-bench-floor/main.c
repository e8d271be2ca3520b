// switchyard-bench-floor BROKERS TOPIC N: the librdkafka floor of the worker benchmark (make bench-worker).
//
// The least a consumer on this librdkafka can do per record: join a group, take each record with
// rd_kafka_consumer_poll (as the worker does), read its value once, destroy it. No decode, no headers, no
// offsets, no output: what is left of a consumer's CPU per record once its own work is taken away, on the
// same broker and the same records as the worker. kcat -C, the floor, also formats and writes every
// record to a pipe.
//
// When N records are read, prints one JSON line (monotonic times of the first and the last record, the CPU
// and peak RSS of the process at that moment), then closes the consumer. Exit 0, or 1 on an error (stderr).
#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double monotonic_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// VmHWM of this process in KiB (getrusage's ru_maxrss would be the forking driver's, kept across execve).
static long peak_rss_kib(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmHWM:", 6) == 0) kib = atol(line + 6);
    }
    if (status) fclose(status);
    return kib;
}

static int set(rd_kafka_conf_t *conf, const char *name, const char *value) {
    char error[512];
    if (rd_kafka_conf_set(conf, name, value, error, sizeof error) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "switchyard-bench-floor: %s: %s\n", name, error);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4 || atol(argv[3]) <= 0) {
        fprintf(stderr, "usage: switchyard-bench-floor BROKERS TOPIC RECORDS\n");
        return 64;
    }
    const char *brokers = argv[1], *topic = argv[2];
    long wanted = atol(argv[3]);
    char group[64], error[512];
    snprintf(group, sizeof group, "switchyard-bench-floor-%d", (int)getpid());

    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", brokers) || set(conf, "group.id", group) ||
        set(conf, "auto.offset.reset", "earliest") || set(conf, "enable.auto.commit", "false") ||
        // A prefetch queue that holds the whole bench topic: librdkafka 2.0 stops fetching for up to a second
        // whenever its queue is full, and a floor measures the transport, not that pause.
        set(conf, "queued.min.messages", "10000000") || set(conf, "queued.max.messages.kbytes", "2097151")) {
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    if (!rk) {
        fprintf(stderr, "switchyard-bench-floor: %s\n", error);
        return 1;
    }
    rd_kafka_poll_set_consumer(rk);
    rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t err = rd_kafka_subscribe(rk, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    if (err) {
        fprintf(stderr, "switchyard-bench-floor: subscribe: %s\n", rd_kafka_err2str(err));
        return 1;
    }

    long count = 0;
    uint64_t fold = 0;  // every value byte read once (summed as 8-byte words), as a decoder touches them
    double first = 0;
    while (count < wanted) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (!m) continue;
        if (m->err) {
            if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                fprintf(stderr, "switchyard-bench-floor: %s\n", rd_kafka_message_errstr(m));
            }
        } else {
            if (count++ == 0) first = monotonic_seconds();
            const unsigned char *p = m->payload;
            size_t i = 0;
            for (; p && i + 8 <= m->len; i += 8) {
                uint64_t word;
                memcpy(&word, p + i, 8);
                fold += word;
            }
            for (; p && i < m->len; i++) fold += p[i];
        }
        rd_kafka_message_destroy(m);
    }
    double done = monotonic_seconds();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 +
                 (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
    printf("{\"records\": %ld, \"firstAt\": %.6f, \"doneAt\": %.6f, \"cpuSeconds\": %.6f, \"peakRSSKiB\": %ld, "
           "\"fold\": %llu}\n",
           count, first, done, cpu, peak_rss_kib(), (unsigned long long)fold);
    fflush(stdout);
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return 0;
}
