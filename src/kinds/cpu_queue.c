/* cpu_queue.c: the CPU device's work queue (one worker thread, work in the order it was queued over
 * all streams; see cpu_internal.h), its streams and its events. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kinds/cpu_internal.h"

typedef struct task {
    struct task *next;
    uint64_t number;
    hk__cpu_work run;
    size_t bytes;
    _Alignas(16) unsigned char args[];
} task;

/* A stream is the number of the last work queued on it. */
typedef struct cpu_stream {
    uint64_t last;
} cpu_stream;

/* An event: the number of the work its latest record waits for, and when that record ran. */
typedef struct cpu_event {
    uint64_t number; /* 0: never recorded */
    double ms;
} cpu_event;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work_queued; /* for the worker */
    pthread_cond_t work_done;   /* for waiters */
    task *head, *tail;
    uint64_t queued;    /* the number of the latest work */
    uint64_t completed; /* every work up to this number is done */
    bool busy;          /* the worker or a caller is running work */
    bool worker_started;
    int failure; /* the first status not reported yet */
    char why[HK__CPU_WHY_MAX];
    cpu_stream default_stream;
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .work_queued = PTHREAD_COND_INITIALIZER, .work_done = PTHREAD_COND_INITIALIZER};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* With the lock held: work `number` is done, with `status`. */
static void finish_locked(uint64_t number, int status, const char *why)
{
    q.completed = number;
    q.busy = false;
    if (status != 0 && q.failure == 0) {
        q.failure = status;
        snprintf(q.why, sizeof q.why, "%s", why);
    }
    pthread_cond_broadcast(&q.work_done);
    if (q.head)
        pthread_cond_signal(&q.work_queued);
}

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&q.lock);
    for (;;) {
        while (!q.head || q.busy)
            pthread_cond_wait(&q.work_queued, &q.lock);
        task *t = q.head;
        q.head = t->next;
        if (!q.head)
            q.tail = NULL;
        q.busy = true;
        pthread_mutex_unlock(&q.lock);
        char why[HK__CPU_WHY_MAX] = "";
        int status = t->run(t->args, why);
        pthread_mutex_lock(&q.lock);
        finish_locked(t->number, status, why);
        free(t);
    }
    return NULL;
}

/* A child of fork has no worker and inherits no queued work (nothing the parent queued is the
 * child's to run). */
static void forget_in_child(void)
{
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.work_queued, NULL);
    pthread_cond_init(&q.work_done, NULL);
    q.head = q.tail = NULL;
    q.completed = q.queued;
    q.busy = false;
    q.worker_started = false;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void)
{
    (void)pthread_atfork(NULL, NULL, forget_in_child);
}

typedef struct record_args {
    cpu_event *event;
    uint64_t number;
} record_args;

static cpu_stream *stream_of(void *stream)
{
    return stream ? (cpu_stream *)stream : &q.default_stream;
}

/* With the lock held: numbers the next work for stream `s`; an event's record (args is a record_args)
 * takes the number too. */
static uint64_t number_locked(cpu_stream *s, bool record, record_args *r)
{
    const uint64_t number = ++q.queued;
    s->last = number;
    q.default_stream.last = number;
    if (record) {
        r->number = number;
        r->event->number = number;
    }
    return number;
}

static hk_status enqueue(const char *fn, void *stream, hk__cpu_work run, const void *args, size_t bytes,
                         size_t elements, bool record)
{
    pthread_once(&atfork_once, install_atfork);
    cpu_stream *s = stream_of(stream);
    pthread_mutex_lock(&q.lock);
    if (!q.head && !q.busy && elements <= HK__CPU_INLINE_ELEMENTS) {
        /* Idle: run it here, in its place in the order. */
        const uint64_t number = number_locked(s, record, (record_args *)args);
        q.busy = true;
        pthread_mutex_unlock(&q.lock);
        char why[HK__CPU_WHY_MAX] = "";
        int status = run((void *)args, why);
        pthread_mutex_lock(&q.lock);
        finish_locked(number, 0, "");
        pthread_mutex_unlock(&q.lock);
        if (status != 0)
            return hk__fail((hk_status)status, fn, "%s", why);
        return HK_SUCCESS;
    }
    pthread_mutex_unlock(&q.lock);

    task *t = malloc(sizeof *t + bytes);
    if (!t)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory queueing work on the CPU device");
    t->next = NULL;
    t->run = run;
    t->bytes = bytes;
    memcpy(t->args, args, bytes);
    pthread_mutex_lock(&q.lock);
    if (!q.worker_started) {
        pthread_t worker;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&worker, &attr, worker_main, NULL);
        pthread_attr_destroy(&attr);
        if (e != 0) {
            pthread_mutex_unlock(&q.lock);
            free(t);
            return hk__fail(HK_ERROR_RUNTIME, fn, "the CPU device's worker thread could not start: %s", strerror(e));
        }
        q.worker_started = true;
    }
    t->number = number_locked(s, record, (record_args *)t->args);
    if (q.tail)
        q.tail->next = t;
    else
        q.head = t;
    q.tail = t;
    pthread_cond_signal(&q.work_queued);
    pthread_mutex_unlock(&q.lock);
    return HK_SUCCESS;
}

hk_status hk__cpu_enqueue(const char *fn, void *stream, hk__cpu_work run, const void *args, size_t bytes,
                          size_t elements)
{
    return enqueue(fn, stream, run, args, bytes, elements, false);
}

/* With the lock held: waits until work `number` is done, then takes the unreported failure. */
static hk_status wait_locked(const char *fn, uint64_t number)
{
    while (q.completed < number)
        pthread_cond_wait(&q.work_done, &q.lock);
    if (q.failure == 0)
        return HK_SUCCESS;
    hk_status status = (hk_status)q.failure;
    char why[HK__CPU_WHY_MAX];
    snprintf(why, sizeof why, "%s", q.why);
    q.failure = 0;
    return hk__fail(status, fn, "earlier work on the CPU device failed: %s", why);
}

hk_status hk__cpu_wait_stream(const char *fn, void *stream)
{
    pthread_mutex_lock(&q.lock);
    /* The default stream waits for everything queued before (as the GPUs' legacy default stream). */
    const uint64_t number = stream ? stream_of(stream)->last : q.queued;
    hk_status s = wait_locked(fn, number);
    pthread_mutex_unlock(&q.lock);
    return s;
}

hk_status hk__cpu_synchronize(const char *fn)
{
    return hk__cpu_wait_stream(fn, NULL);
}

/* ----------------------------------------------------------------- streams */

hk_status hk__cpu_stream_create(const char *fn, void **stream)
{
    cpu_stream *s = calloc(1, sizeof *s);
    if (!s)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for a CPU-device stream");
    *stream = s;
    return HK_SUCCESS;
}

hk_status hk__cpu_stream_destroy(const char *fn, void *stream)
{
    (void)fn;
    /* The caller has synchronised it; no queued work refers to a stream. */
    free(stream);
    return HK_SUCCESS;
}

hk_status hk__cpu_stream_synchronize(const char *fn, void *stream)
{
    return hk__cpu_wait_stream(fn, stream);
}

hk_status hk__cpu_stream_query(const char *fn, void *stream)
{
    (void)fn;
    pthread_mutex_lock(&q.lock);
    const uint64_t number = stream ? stream_of(stream)->last : q.queued;
    const bool done = q.completed >= number;
    pthread_mutex_unlock(&q.lock);
    return done ? HK_SUCCESS : HK_ERROR_NOT_READY;
}

/* Work runs in the order it was queued: what `event` waits for is done before anything queued after
 * this call starts. */
hk_status hk__cpu_stream_wait_event(const char *fn, void *stream, void *event)
{
    (void)fn, (void)stream, (void)event;
    return HK_SUCCESS;
}

hk_status hk__cpu_stream_order(const char *fn, void *producer, void *waiter)
{
    (void)fn, (void)producer, (void)waiter;
    return HK_SUCCESS;
}

/* ------------------------------------------------------------------ events */

/* The record's own work: the time it is reached, if it is still the event's latest record. */
static int run_record(void *args, char *why)
{
    (void)why;
    const record_args *r = args;
    const double t = now_ms();
    pthread_mutex_lock(&q.lock);
    if (r->event->number == r->number)
        r->event->ms = t;
    pthread_mutex_unlock(&q.lock);
    return 0;
}

hk_status hk__cpu_event_create(const char *fn, void **event)
{
    cpu_event *e = calloc(1, sizeof *e);
    if (!e)
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory for a CPU-device event");
    *event = e;
    return HK_SUCCESS;
}

hk_status hk__cpu_event_destroy(const char *fn, void *event)
{
    (void)fn;
    cpu_event *e = event;
    /* A pending record writes into the event: let it run first. */
    pthread_mutex_lock(&q.lock);
    while (q.completed < e->number)
        pthread_cond_wait(&q.work_done, &q.lock);
    pthread_mutex_unlock(&q.lock);
    free(e);
    return HK_SUCCESS;
}

hk_status hk__cpu_event_record(const char *fn, void *event, void *stream)
{
    /* Numbered with the event under the queue's lock; when the device is idle it runs at once. */
    record_args r = {event, 0};
    return enqueue(fn, stream, run_record, &r, sizeof r, 0, true);
}

hk_status hk__cpu_event_synchronize(const char *fn, void *event)
{
    cpu_event *e = event;
    pthread_mutex_lock(&q.lock);
    hk_status s = wait_locked(fn, e->number);
    pthread_mutex_unlock(&q.lock);
    return s;
}

hk_status hk__cpu_event_query(const char *fn, void *event)
{
    (void)fn;
    cpu_event *e = event;
    pthread_mutex_lock(&q.lock);
    const bool done = q.completed >= e->number;
    pthread_mutex_unlock(&q.lock);
    return done ? HK_SUCCESS : HK_ERROR_NOT_READY;
}

hk_status hk__cpu_event_elapsed_ms(const char *fn, float *milliseconds, void *start, void *end)
{
    cpu_event *a = start, *b = end;
    pthread_mutex_lock(&q.lock);
    const bool recorded = a->number != 0 && b->number != 0;
    const bool done = q.completed >= a->number && q.completed >= b->number;
    const double ms = b->ms - a->ms;
    pthread_mutex_unlock(&q.lock);
    if (!recorded)
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "an event was never recorded (hk_event_record it first)");
    if (!done)
        return HK_ERROR_NOT_READY;
    *milliseconds = (float)ms;
    return HK_SUCCESS;
}
