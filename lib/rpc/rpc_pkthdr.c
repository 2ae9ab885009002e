/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include "pmr_pkthdr.h"

static const char *const err_names[PMR_PKTHDR_E_MAX] = {
	[PMR_PKTHDR_OK] = "ok",
	[PMR_PKTHDR_E_SHORT] = "short",
	[PMR_PKTHDR_E_MAGIC] = "magic",
	[PMR_PKTHDR_E_VERSION] = "version",
	[PMR_PKTHDR_E_TYPE] = "pkt_type",
	[PMR_PKTHDR_E_PKT_NUM] = "pkt_num",
	[PMR_PKTHDR_E_SIZE] = "msg_size",
	[PMR_PKTHDR_E_STATUS] = "status",
	[PMR_PKTHDR_E_RESERVED] = "reserved",
};

const char *
pmr_pkthdr_err_name(unsigned int err)
{
	return err < PMR_PKTHDR_E_MAX ? err_names[err] : "unknown";
}
