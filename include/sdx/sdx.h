/*
 * sdx — schemaless data serialization: the umbrella header.
 */
#ifndef SDX_H
#define SDX_H

#include "bson.h"
#include "binn.h"
#include "buf.h"
#include "cbor.h"
#include "common.h"
#include "detect.h"
#include "doc.h"
#include "json.h"
#include "map.h"
#include "msgpack.h"
#include "sink.h"
#include "source.h"
#include "ubjson.h"

#endif /* SDX_H */
