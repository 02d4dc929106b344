/*
 * SPDX-License-Identifier: MIT
 *
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): a producer
 * that rings the doorbell only when the consumer does not say it polls,
 * and a consumer that sleeps on the doorbell.  Checked with spin in every
 * interleaving (tests/model): the consumer never sleeps for good while a
 * record it has not consumed is published, and every record is consumed.
 *
 * Memory is x86's (TSO): each side's stores wait in a store buffer of its
 * own, which the memory process drains in order, at any time; a full
 * fence waits until that side's buffer is empty.  A load sees the memory
 * (neither side loads what it stores itself).  Positions count records;
 * a doorbell falls due at the first publication past each multiple of W
 * (the watermark), and the consumer's re-check asks whether data_head
 * crossed a multiple past what it consumed (rs_consumer_sleep_prepare).
 * N is a multiple of W, so the last publication is due: a consumer
 * asleep for good after it means a lost doorbell.
 *
 * Variants, by -D at `spin -a`, each of which spin must reject:
 *   NO_RECHECK        the consumer sleeps without re-reading data_head
 *   NO_PRODUCER_FENCE the producer reads the state with its head still
 *                     in its store buffer
 *   NO_CONSUMER_FENCE the consumer re-reads the head with WAKE still in
 *                     its store buffer
 */

#ifndef N
#define N        4   /* records the producer publishes */
#endif
#ifndef W
#define W        2   /* the watermark, in records; N % W == 0 */
#endif
#define WAKE     0   /* RS_CONSUMER_WAKE: ring */
#define POLLING  1   /* RS_CONSUMER_POLLING: the doorbell may wait */

/* shared memory */
byte head = 0;       /* data_head: records published */
bit  state = WAKE;   /* rs_ctrl_host.consumer, as laid out */
bit  bell = 0;       /* the eventfd: set by a ring, cleared by the read */

/* store buffers: one entry each, drained in order */
bit  pbuf_full = 0;  /* the producer's store of data_head */
byte pbuf;
bit  cbuf_full = 0;  /* the consumer's store of its state */
bit  cbuf;

/* counters for the checks */
byte rung = 0;
byte suppressed = 0;
byte tail = 0;       /* what the consumer consumed */
bit  asleep = 0;

inline producer_store_head(v)
{
	atomic { !pbuf_full -> pbuf = v; pbuf_full = 1 }
}

inline consumer_store_state(v)
{
	atomic { !cbuf_full -> cbuf = v; cbuf_full = 1 }
}

active proctype memory()
{
end:	do
	:: atomic { pbuf_full -> head = pbuf; pbuf_full = 0 }
	:: atomic { cbuf_full -> state = cbuf; cbuf_full = 0 }
	od
}

active proctype producer()
{
	byte i = 0;
	byte wakeup = 0;    /* the multiple of W of the last decision */

	do
	:: i < N ->
		i++;
		/* write the record, then A: store-release(data_head) */
		producer_store_head(i);
		if
		:: i - wakeup >= W ->
			wakeup = i - i % W;
			/* X: full fence */
#ifndef NO_PRODUCER_FENCE
			!pbuf_full;
#endif
			/* due: read the consumer's state */
			if
			:: state == POLLING -> suppressed++
			:: else -> bell = 1; rung++
			fi
		:: else -> skip
		fi
	:: else -> break
	od
}

active proctype consumer()
{
	do
	:: tail == N -> break
	:: tail < N ->
		/* drain: what it sees published */
		if
		:: head > tail -> tail = head
		:: else -> skip
		fi;
		if
		:: tail == N -> break
		:: else -> skip
		fi;
		if
		:: skip     /* poll on */
		:: /* about to sleep: W, store WAKE, full fence */
			consumer_store_state(WAKE);
#ifndef NO_CONSUMER_FENCE
			!cbuf_full;
#endif
#ifndef NO_RECHECK
			if
			:: head / W != tail / W ->
				/* moved: drain instead of sleeping */
				consumer_store_state(POLLING)
			:: else ->
#endif
				asleep = 1;
				/* sleep on the doorbell; blocking here for
				 * good is an invalid end state */
				bell == 1;
				bell = 0;
				asleep = 0;
				consumer_store_state(POLLING)
#ifndef NO_RECHECK
			fi
#endif
		fi
	od;
	assert(tail == N && head == N)
}

/* At the end every publication was rung or suppressed, once. */
active proctype accounting()
{
	timeout -> assert(rung + suppressed == N / W || tail < N)
}
