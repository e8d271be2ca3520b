#ifndef SWITCHYARD_CRDKAFKA_SHIM_H
#define SWITCHYARD_CRDKAFKA_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#endif
