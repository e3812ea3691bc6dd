/* The lanes' loop (_lanes.h), included once per copy: PCL(name) names this copy's
   functions, PCL_TARGET gives them the copy's instruction set, and PCL_AVX512 picks the
   AVX-512 forms of the few operations that have one; the rest is GCC's vector C. Every
   shift count is under 64, in every lane: a vector shift past that is undefined, and
   compilers lower it differently for different targets.

   The rules as the scalar kernel has them (_kernel.pyx, docs/rules.md §3-§8), one move a
   lane a step, each condition a lane mask in place of a branch: a mask register's bit a
   lane in the AVX-512 copy (a comparison's result, read by the blends and masked moves
   themselves), a word of all ones or zero a lane in the portable one. C's & | ~ combine
   either. */

#define PCL_FN PCL_TARGET static inline __attribute__((always_inline, unused))

#define V(x) ((pcl_v){} + (uint64_t)(x))
#define M(c) ((pcl_v)(c))               /* a comparison's result as a lane mask */
#define LT(a, b) M((pcl_s)(a) < (pcl_s)(b))   /* small values: a signed compare, one instruction */
#define ONES 0x0101010101010101ULL

#ifdef PCL_AVX512
typedef __mmask8 PCL(mask);
#define KEQ(a, b) _mm512_cmpeq_epi64_mask((__m512i)(a), (__m512i)(b))
#define KLT(a, b) _mm512_cmplt_epi64_mask((__m512i)(a), (__m512i)(b))   /* signed */
#define KTEST(a, b) _mm512_test_epi64_mask((__m512i)(a), (__m512i)(b))  /* (a & b) != 0 */
#define KNONE ((PCL(mask))0)
PCL_FN pcl_v PCL(blend)(PCL(mask) m, pcl_v a, pcl_v b) {      /* a where m, else b */
    return (pcl_v)_mm512_mask_blend_epi64(m, (__m512i)b, (__m512i)a);
}
PCL_FN pcl_v PCL(keep)(PCL(mask) m, pcl_v x) {                 /* x where m, else 0 */
    return (pcl_v)_mm512_maskz_mov_epi64(m, (__m512i)x);
}
PCL_FN pcl_v PCL(keep_and)(PCL(mask) m, pcl_v a, pcl_v b) {    /* a & b where m, else 0 */
    return (pcl_v)_mm512_maskz_and_epi64(m, (__m512i)a, (__m512i)b);
}
PCL_FN int PCL(some)(PCL(mask) m) { return m != 0; }           /* in any lane */
#else
typedef pcl_v PCL(mask);
#define KEQ(a, b) M((a) == (b))
#define KLT(a, b) LT(a, b)
#define KTEST(a, b) (~M(((a) & (b)) == V(0)))
#define KNONE V(0)
PCL_FN pcl_v PCL(blend)(PCL(mask) m, pcl_v a, pcl_v b) { return (m & a) | (~m & b); }
PCL_FN pcl_v PCL(keep)(PCL(mask) m, pcl_v x) { return m & x; }
PCL_FN pcl_v PCL(keep_and)(PCL(mask) m, pcl_v a, pcl_v b) { return m & a & b; }
#endif

#ifdef PCL_AVX512
PCL_FN pcl_v PCL(bytecounts)(pcl_v x) { return (pcl_v)_mm512_popcnt_epi8((__m512i)x); }
PCL_FN pcl_v PCL(popcount)(pcl_v x) { return (pcl_v)_mm512_popcnt_epi64((__m512i)x); }
PCL_FN pcl_v PCL(byte_sums)(pcl_v x) {
    return (pcl_v)_mm512_sad_epu8((__m512i)x, _mm512_setzero_si512());
}
PCL_FN int PCL(any)(pcl_v m) { return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0; }
PCL_FN pcl_v PCL(min)(pcl_v a, pcl_v b) { return (pcl_v)_mm512_min_epi64((__m512i)a, (__m512i)b); }
PCL_FN pcl_v PCL(rotate)(pcl_v x, pcl_v n) { return (pcl_v)_mm512_rolv_epi64((__m512i)x, (__m512i)n); }
PCL_FN pcl_v PCL(high_zeros)(pcl_v x) { return (pcl_v)_mm512_lzcnt_epi64((__m512i)x); }  /* 64 for 0 */
PCL_FN pcl_v PCL(shift_in)(pcl_v low, pcl_v high, pcl_v n) {   /* (high:low) >> (n & 63) */
    return (pcl_v)_mm512_shrdv_epi64((__m512i)low, (__m512i)high, (__m512i)n);
}
PCL_FN pcl_v PCL(spread_byte)(pcl_v k) {           /* byte 0 of each lane into all 8 */
    return (pcl_v)_mm512_shuffle_epi8((__m512i)k, _mm512_set4_epi32(0x08080808, 0x08080808, 0, 0));
}
PCL_FN pcl_v PCL(bytes_upto)(pcl_v a, pcl_v b) {   /* 1 in each byte where a's <= b's */
    return (pcl_v)_mm512_maskz_mov_epi8(_mm512_cmple_epu8_mask((__m512i)a, (__m512i)b),
                                        (__m512i)V(ONES));
}
PCL_FN pcl_v PCL(mul32)(pcl_v a, pcl_v b) { return (pcl_v)_mm512_mul_epu32((__m512i)a, (__m512i)b); }
PCL_FN pcl_v PCL(row8)(const uint64_t* table, pcl_v index) {     /* table[index & 7] */
    return (pcl_v)_mm512_permutexvar_epi64((__m512i)index, _mm512_loadu_si512(table));
}
PCL_FN pcl_v PCL(row16)(const uint64_t* table, pcl_v index) {    /* table[index & 15] */
    return (pcl_v)_mm512_permutex2var_epi64(_mm512_loadu_si512(table), (__m512i)index,
                                            _mm512_loadu_si512(table + 8));
}
PCL_FN pcl_v PCL(byte64)(const uint8_t* table, pcl_v index) {    /* table[index & 63] */
    return (pcl_v)_mm512_permutexvar_epi8((__m512i)index, _mm512_loadu_si512(table)) & V(0xFF);
}
#else
PCL_FN pcl_v PCL(bytecounts)(pcl_v x) {
    x = x - ((x >> 1) & V(0x5555555555555555ULL));
    x = (x & V(0x3333333333333333ULL)) + ((x >> 2) & V(0x3333333333333333ULL));
    return (x + (x >> 4)) & V(0x0F0F0F0F0F0F0F0FULL);
}
PCL_FN pcl_v PCL(byte_sums)(pcl_v x) { return (x * V(ONES)) >> 56; }   /* sums under 256 */
PCL_FN pcl_v PCL(popcount)(pcl_v x) { return PCL(byte_sums)(PCL(bytecounts)(x)); }
PCL_FN int PCL(any)(pcl_v m) {
    uint64_t all = 0;
    for (int i = 0; i < PCL_WIDTH; i++) all |= m[i];
    return all != 0;
}
PCL_FN int PCL(some)(pcl_v m) { return PCL(any)(m); }
PCL_FN pcl_v PCL(spread_byte)(pcl_v k) { return k * V(ONES); }
PCL_FN pcl_v PCL(min)(pcl_v a, pcl_v b) { pcl_v m = LT(a, b); return (m & a) | (~m & b); }
PCL_FN pcl_v PCL(rotate)(pcl_v x, pcl_v n) { return (x << n) | (x >> ((V(64) - n) & V(63))); }   /* n < 64 */
PCL_FN pcl_v PCL(high_zeros)(pcl_v x) {           /* of x with one bit set (63 for 0) */
    return (V(63) - PCL(popcount)(x - V(1))) & V(63);
}
PCL_FN pcl_v PCL(shift_in)(pcl_v low, pcl_v high, pcl_v n) {   /* (high:low) >> n, n < 64 */
    return (low >> n) | ((high << 1) << (V(63) - n));
}
PCL_FN pcl_v PCL(bytes_upto)(pcl_v a, pcl_v b) {   /* bytes under 128 */
    pcl_v over = ((a | V(0x80 * ONES)) - (b + V(ONES))) & V(0x80 * ONES);
    return (over >> 7) ^ V(ONES);
}
PCL_FN pcl_v PCL(mul32)(pcl_v a, pcl_v b) { return (a & V(0xFFFFFFFF)) * (b & V(0xFFFFFFFF)); }
PCL_FN pcl_v PCL(row)(const uint64_t* table, pcl_v index, uint64_t last) {
    pcl_v r;
    for (int i = 0; i < PCL_WIDTH; i++) r[i] = table[index[i] & last];
    return r;
}
PCL_FN pcl_v PCL(row8)(const uint64_t* table, pcl_v index) { return PCL(row)(table, index, 7); }
PCL_FN pcl_v PCL(row16)(const uint64_t* table, pcl_v index) { return PCL(row)(table, index, 15); }
PCL_FN pcl_v PCL(byte64)(const uint8_t* table, pcl_v index) {
    pcl_v r;
    for (int i = 0; i < PCL_WIDTH; i++) r[i] = table[index[i] & 63];
    return r;
}
#endif

/* The k-th set bit of x in each lane (x with more than k set bits; anything in the lanes
   without): the byte holding it from the bytes' running counts, then its nibble, then a
   64-entry table (pc_select_by's method, branch-free in every lane). */
PCL_FN pcl_v PCL(select)(const pc_lane_tables* t, pcl_v x, pcl_v k) {
    pcl_v c = PCL(bytecounts)(x);
    pcl_v upto = c + (c << 8);
    upto += upto << 16;
    upto += upto << 32;                                  /* byte i: the set bits of bytes 0..i */
    pcl_v below = PCL(bytes_upto)(upto, PCL(spread_byte)(k & V(63)));
    pcl_v shift = (PCL(byte_sums)(below) << 3) & V(63);
    pcl_v in = k - (((upto << 8) >> shift) & V(0xFF));   /* k less the bits of lower bytes */
    pcl_v byte = (x >> shift) & V(0xFF), low = byte & V(0xF);
    pcl_v low_bits = PCL(popcount)(low);
    PCL(mask) high = ~KLT(in, low_bits);
    pcl_v index = PCL(blend)(high, (((in - low_bits) & V(3)) << 4) | (byte >> 4),
                             ((in & V(3)) << 4) | low);
    return shift + PCL(byte64)(t->nibble_select, index) + PCL(keep)(high, V(4));
}

/* SplitMix64's finalizer (_kernel.pyx's mix64) in each lane */
PCL_FN pcl_v PCL(mix64)(pcl_v z) {
    z = (z ^ (z >> 30)) * V(0xBF58476D1CE4E5B9ULL);
    z = (z ^ (z >> 27)) * V(0x94D049BB133111EBULL);
    return z ^ (z >> 31);
}

/* REACH[size][bit] without a load, for a tree (sizes 1-3) at `low`, whose bit has `lz` bits
   above it: the centre's reach, held as a 128-bit word whose shift by `lz` puts it at the
   tree (one funnel shift; its size chosen by two masks, cheaper than the size's bits and a
   table row), less the cells more than 3 columns away (which wrapped round a row's end);
   and with the board's mask, which every caller applies (_build_lane_tables checks it is
   REACH, cell by cell) */
PCL_FN pcl_v PCL(reach)(const pc_lane_tables* t, pcl_v low, pcl_v lz, pcl_v mediums,
                        pcl_v larges) {
    PCL(mask) large = KTEST(low, larges), medium = KTEST(low, mediums);
    pcl_v high = PCL(blend)(large, V(t->reach_high[3]),
                            PCL(blend)(medium, V(t->reach_high[2]), V(t->reach_high[1])));
    pcl_v low_half = PCL(blend)(large, V(t->reach_low[3]),
                                PCL(blend)(medium, V(t->reach_low[2]), V(t->reach_low[1])));
    return PCL(shift_in)(low_half, high, lz) & PCL(row8)(t->columns_near, lz);
}

/* the player after p in each lane: p + 1, or 0 after the last (with 2 players, p ^ 1) */
PCL_FN pcl_v PCL(next_player)(pcl_v p, int players) {
    pcl_v next = p + V(1);
    return players == 2 ? p ^ V(1) : PCL(keep)(~KEQ(next, V(players)), next);
}

/* §5.1's shadows with each lane's sun: by size, the cells where a piece is shaded */
PCL_FN void PCL(shadows)(const pc_lane_tables* t, pcl_v sun, pcl_v smalls, pcl_v mediums,
                         pcl_v larges, pcl_v* small, pcl_v* medium, pcl_v* large) {
    pcl_v turn = (V(t->shadow_turn) >> (sun << 3)) & V(0xFF);
#define STEP(bb) (PCL(rotate)(bb, turn) & V(t->board))
    pcl_v l1 = STEP(larges), l2 = STEP(l1), m1 = STEP(mediums);
    *large = l1 | l2 | STEP(l2);
    *medium = *large | m1 | STEP(m1);
    *small = *medium | STEP(smalls);
#undef STEP
}

typedef struct {
    pcl_v seeds, smalls, mediums, larges, active;
    pcl_v own[4], purse[4], light[4], points[4];
    pcl_v stacks, round, first, current, phase, sun, last_round, shade, rng, word;
    pcl_v moves;                 /* each lane's game's moves so far */
    long long index[PCL_WIDTH];  /* each lane's game */
} PCL(lanes);

/* lane i takes the next game, or idles when none is left */
PCL_TARGET static void PCL(take)(PCL(lanes)* L, int i, long long* next, long long games,
                                 void* context, pc_lane_start start) {
    pc_lane_game g;
    if (*next >= games) {
        L->phase[i] = PCL_IDLE;
        return;
    }
    L->index[i] = *next;
    start(context, (*next)++, &g);
    L->seeds[i] = g.seeds; L->smalls[i] = g.smalls; L->mediums[i] = g.mediums;
    L->larges[i] = g.larges; L->active[i] = g.active;
    for (int p = 0; p < 4; p++) {
        L->own[p][i] = g.own[p]; L->purse[p][i] = g.purse[p];
        L->light[p][i] = g.light[p]; L->points[p][i] = g.points[p];
    }
    L->stacks[i] = g.stacks; L->round[i] = g.round; L->first[i] = g.first;
    L->current[i] = g.current; L->phase[i] = g.phase; L->sun[i] = g.sun;
    L->last_round[i] = g.last_round; L->shade[i] = g.shade;
    L->rng[i] = g.rng; L->word[i] = g.word; L->moves[i] = 0;
}

/* lane i's game ended: to the caller */
PCL_TARGET static void PCL(give)(PCL(lanes)* L, int i, void* context, pc_lane_finish finish) {
    pc_lane_game g;
    g.seeds = L->seeds[i]; g.smalls = L->smalls[i]; g.mediums = L->mediums[i];
    g.larges = L->larges[i]; g.active = L->active[i];
    for (int p = 0; p < 4; p++) {
        g.own[p] = L->own[p][i]; g.purse[p] = L->purse[p][i];
        g.light[p] = L->light[p][i]; g.points[p] = L->points[p][i];
    }
    g.stacks = L->stacks[i]; g.round = L->round[i]; g.first = L->first[i];
    g.current = L->current[i]; g.phase = L->phase[i]; g.sun = L->sun[i];
    g.last_round = L->last_round[i]; g.shade = L->shade[i];
    g.rng = L->rng[i]; g.word = L->word[i];
    finish(context, L->index[i], (long long)L->moves[i], &g);
}

PCL_FN void PCL(games)(const pc_lane_tables* t, const int players, int shade,
                       long long games, void* context, pc_lane_start start,
                       pc_lane_finish finish) {
    PCL(lanes) L;
    long long next = 0;
    const pcl_v board = V(t->board);
    PCL(mask) eq[4];
    int playing = 0;
    for (int i = 0; i < PCL_WIDTH; i++) {
        PCL(take)(&L, i, &next, games, context, start);
        while (L.phase[i] == PCL_OVER) {             /* a game over from the start */
            PCL(give)(&L, i, context, finish);
            PCL(take)(&L, i, &next, games, context, start);
        }
        playing |= L.phase[i] != PCL_IDLE;
    }
    while (playing) {
        /* the player to move's values, from each lane's mover: with 2 players, player 1's
           where not player 0's, one blend a value (an idle lane's mover is neither, and
           what is written back there is never read) */
        pcl_v own = V(0), purse = V(0), light = V(0);
        if (players == 2) {
            eq[0] = KEQ(L.current, V(0));
            eq[1] = ~eq[0];
            own = PCL(blend)(eq[0], L.own[0], L.own[1]);
            purse = PCL(blend)(eq[0], L.purse[0], L.purse[1]);
            light = PCL(blend)(eq[0], L.light[0], L.light[1]);
        } else {
            for (int p = 0; p < players; p++) {
                eq[p] = KEQ(L.current, V(p));
                own |= PCL(keep)(eq[p], L.own[p]);
                purse |= PCL(keep)(eq[p], L.purse[p]);
                light |= PCL(keep)(eq[p], L.light[p]);
            }
        }
        pcl_v seeds = L.seeds, smalls = L.smalls, mediums = L.mediums, larges = L.larges;
        pcl_v active = L.active, occupied = seeds | smalls | mediums | larges;
        PCL(mask) setup = KEQ(L.phase, V(PCL_SETUP)), play = KEQ(L.phase, V(PCL_PLAY));

        /* the legal moves of each kind (buyable .. collectable), counted in id order */
        pcl_v row = PCL(row16)(t->light_row, PCL(min)(light, V(15)));
        /* bit 8c + 7 where column c can be bought (a lane not in play draws none of the
           kinds counted here: is_buy .. is_end below need play) */
        pcl_v buys = (((purse >> PCL_PURSE_BOARD) | V(0x80808080)) - (row & V(0xFFFFFFFF)))
                     & V(0x80808080);
        pcl_v nbuy = PCL(popcount)(buys);
        pcl_v block_plant = V(0), block_grow = V(0);
        if (shade) {
            pcl_v small, medium, large;
            PCL(shadows)(t, L.sun, smalls, mediums, larges, &small, &medium, &large);
            block_plant = small & L.shade;
            block_grow = ((seeds & small) | (smalls & small) | (mediums & medium)) & L.shade;
        }
        PCL(mask) can_plant = play & KTEST(purse, V(0xFF)) & ~KLT(light, V(t->plant_cost));
        pcl_v sources = PCL(keep)(can_plant, own & ~(active | seeds));
        pcl_v targets = board & ~(occupied | active | block_plant);
        pcl_v source[16], reach[16], before[16], plants = V(0);   /* source: bits above it */
        int nsources = 0;
        PCL(mask) has;                       /* the lanes with a source left */
        while (PCL(some)(has = KTEST(sources, sources))) {   /* each lane's, lowest first */
            pcl_v low = sources & -sources;
            pcl_v lz = PCL(high_zeros)(low);   /* past a lane's last source anything: masked */
            pcl_v r = PCL(keep_and)(has, PCL(reach)(t, low, lz, mediums, larges), targets);
            source[nsources] = lz;
            reach[nsources] = r;
            before[nsources++] = plants;
            plants += PCL(popcount)(r);
            sources ^= low;
        }
        pcl_v grows = ((purse & V(0xFFFFFFFF)) + V(0x7F7F7F7F)) & (row >> 32);
        pcl_v grow = (PCL(keep)(KTEST(grows, V(1 << 15)), seeds)
                      | PCL(keep)(KTEST(grows, V(1 << 23)), smalls)
                      | PCL(keep)(KTEST(grows, V(1ULL << 31)), mediums))
                     & own & ~(active | block_grow);
        pcl_v collect = PCL(keep)(~KLT(light, V(t->collect_cost)), own & ~active & larges);
        pcl_v plants_at = nbuy, grows_at = plants_at + plants;
        pcl_v collects_at = grows_at + PCL(popcount)(grow);
        pcl_v end_at = collects_at + PCL(popcount)(collect);
        pcl_v place = PCL(keep)(setup & KTEST(purse, V(0xFF00)), V(t->outer) & ~occupied);
        pcl_v n = PCL(blend)(setup, PCL(popcount)(place), end_at + V(1));

        /* the draw: below(word, n), and the next move's word, off the game's path */
        pcl_v k = PCL(mul32)(L.word >> 32, n) >> 32;
        L.rng += V(0x9E3779B97F4A7C15ULL);
        L.word = PCL(mix64)(L.rng);
        L.moves += PCL(keep)(setup | play, V(1));
        PCL(mask) is_buy = play & KLT(k, plants_at);
        PCL(mask) is_plant = play & ~is_buy & KLT(k, grows_at);
        PCL(mask) is_grow = play & ~KLT(k, grows_at) & KLT(k, collects_at);
        PCL(mask) is_collect = play & ~KLT(k, collects_at) & KLT(k, end_at);
        PCL(mask) is_end = play & ~KLT(k, end_at);

        /* a plant's source: the last with at most k plants before it (past a lane's last
           source, `before` is all its plants, more than any plant's k) */
        pcl_v kp = k - plants_at, from = V(0), from_reach = V(0), from_before = V(0);
        if (PCL(some)(is_plant)) {
            for (int i = 0; i < nsources; i++) {
                PCL(mask) hit = ~KLT(kp, before[i]);
                from = PCL(blend)(hit, source[i], from);
                from_reach = PCL(blend)(hit, reach[i], from_reach);
                from_before = PCL(blend)(hit, before[i], from_before);
            }
        }
        /* the move's cell (a column for a buy): one select for every kind */
        pcl_v mask = PCL(blend)(is_buy, buys, PCL(blend)(is_plant, from_reach,
                     PCL(blend)(is_grow, grow, PCL(blend)(is_collect, collect, place))));
        pcl_v kk = PCL(blend)(is_plant, kp - from_before, PCL(blend)(is_grow, k - grows_at,
                   PCL(blend)(is_collect, k - collects_at, k)));
        pcl_v where = PCL(select)(t, mask, kk) & V(63);
        pcl_v bit = V(1) << where;

        /* buy: the column's next piece, for its price */
        pcl_v column = where & V(0x18);  /* 8 x the column (where = 8c + 7) */
        pcl_v in_column = (purse >> (V(PCL_PURSE_BOARD) + column)) & V(0xFF);
        pcl_v price = (V(t->price_nibbles) >> ((column << 1) + (((in_column - V(1)) & V(3)) << 2)))
                      & V(0xF);
        light -= PCL(keep)(is_buy, price);
        purse += PCL(keep)(is_buy, (V(1) << column) - (V(1) << (V(PCL_PURSE_BOARD) + column)));
        /* plant: a seed onto the target, both cells activated */
        pcl_v planted = PCL(keep)(is_plant, bit);
        seeds |= planted;
        own |= planted;
        light -= PCL(keep)(is_plant, V(t->plant_cost));
        purse -= PCL(keep)(is_plant, V(1));
        active |= planted | PCL(keep)(is_plant, V(1ULL << 63) >> (from & V(63)));
        /* grow: the piece moves up a size */
        pcl_v grown = PCL(keep)(is_grow, bit);
        pcl_v size = ((smalls >> where) & V(1)) | (((mediums >> where) & V(1)) << 1);
        pcl_v was_seed = seeds & grown, was_small = smalls & grown, was_medium = mediums & grown;
        seeds ^= was_seed;
        smalls ^= was_seed | was_small;
        mediums ^= was_small | was_medium;
        larges |= was_medium;
        light -= PCL(keep)(is_grow, (V(t->grow_costs) >> (size << 3)) & V(0xFF));
        /* collect: the large tree leaves */
        pcl_v collected = PCL(keep)(is_collect, bit);
        larges ^= collected;
        own ^= collected;
        light -= PCL(keep)(is_collect, V(t->collect_cost));
        /* grow, collect: the piece returns to its column if it has room */
        PCL(mask) returns = is_grow | is_collect;
        pcl_v back_size = PCL(blend)(is_grow, size, V(3));
        pcl_v after = purse - PCL(keep)(is_grow, V(1) << ((size + V(1)) << 3));
        pcl_v slot = V(PCL_PURSE_BOARD) + (back_size << 3);
        PCL(mask) room = KLT((after >> slot) & V(0xFF), (V(t->slots) >> (back_size << 3)) & V(0xFF));
        purse = PCL(blend)(returns, after + PCL(keep)(room, V(1) << slot), purse);
        active |= PCL(keep)(returns, bit);
        if (PCL(some)(is_collect)) {          /* §6: the token of the soil, or the next lower */
            pcl_v leaves = PCL(keep)(KTEST(bit, V(t->richer[0])), V(1))
                           + PCL(keep)(KTEST(bit, V(t->richer[1])), V(1))
                           + PCL(keep)(KTEST(bit, V(t->richer[2])), V(1));   /* less 1 */
            pcl_v stack = V(0);
            PCL(mask) has = KNONE;
            for (int j = 3; j >= 0; j--) {
                PCL(mask) ok = ~has & ~KLT(leaves, V(j)) & KTEST(L.stacks, V(0xFFULL << (8 * j)));
                stack = PCL(blend)(ok, V(j), stack);
                has |= ok;
            }
            PCL(mask) take = is_collect & has;
            pcl_v taken = ((V(t->stack_size) - L.stacks) >> (stack << 3)) & V(0xF);
            pcl_v value = PCL(byte64)(t->tokens, (stack << 4) | taken);
            for (int p = 0; p < players; p++)
                L.points[p] += PCL(keep)(take & eq[p], value);
            L.stacks -= PCL(keep)(take, V(1) << (stack << 3));
        }
        /* setup: a small tree placed */
        pcl_v placed = PCL(keep)(setup, bit);
        smalls |= placed;
        own |= placed;
        purse -= PCL(keep)(setup, V(0x100));

        /* the mover's values back */
        for (int p = 0; p < players; p++) {
            L.own[p] = PCL(blend)(eq[p], own, L.own[p]);
            L.purse[p] = PCL(blend)(eq[p], purse, L.purse[p]);
            L.light[p] = PCL(blend)(eq[p], light, L.light[p]);
        }
        L.seeds = seeds; L.smalls = smalls; L.mediums = mediums; L.larges = larges;

        /* §4: after a placement the next player places, or play starts */
        pcl_v trees = PCL(popcount)(occupied | placed);
        PCL(mask) setup_done = setup & KEQ(trees, V(t->setup_trees * players));
        pcl_v modulo = players == 2 ? trees & V(1) : players == 4 ? trees & V(3)
                       : (V(0x210210210210210ULL) >> ((trees & V(15)) << 2)) & V(0xF);  /* % 3 */
        pcl_v current = PCL(blend)(setup & ~setup_done, modulo, L.current);
        /* §5.3, §5.4: the turn passes; after the round's last, the first player token and
           the sun move, or the game ends */
        active = PCL(keep)(~is_end, active);
        pcl_v following = PCL(next_player)(L.current, players);
        PCL(mask) round_ends = is_end & KEQ(following, L.first);
        current = PCL(blend)(is_end & ~round_ends, following, current);
        PCL(mask) over = round_ends & KEQ(L.round, L.last_round);
        PCL(mask) next_round = round_ends & ~over;
        pcl_v first = PCL(next_player)(L.first, players);
        L.first = PCL(blend)(next_round, first, L.first);
        current = PCL(blend)(next_round, first, current);
        L.round = PCL(blend)(setup_done, V(1), L.round + PCL(keep)(next_round, V(1)));
        pcl_v sun = L.sun + V(1);
        sun = PCL(keep)(~KEQ(sun, V(t->sun_positions)), sun);
        L.sun = PCL(blend)(next_round, sun, PCL(keep)(~setup_done, L.sun));
        L.current = PCL(keep)(~setup_done, current);
        L.phase = PCL(blend)(setup_done, V(PCL_PLAY), PCL(blend)(over, V(PCL_OVER), L.phase));
        L.active = active;
        PCL(mask) lit = next_round | setup_done;
        if (PCL(some)(lit)) {                 /* §5.1: photosynthesis */
            pcl_v small, medium, large;
            PCL(shadows)(t, L.sun, L.smalls, L.mediums, L.larges, &small, &medium, &large);
            /* a lit piece earns its size: 1 LP in the odd sizes' set, 2 in that of sizes 2 and
               3 (in the lanes where the sun shines now) */
            pcl_v lit_large = PCL(keep)(lit, L.larges & ~large);
            pcl_v lit_odd = PCL(keep)(lit, L.smalls & ~small) | lit_large;
            pcl_v lit_two_up = PCL(keep)(lit, L.mediums & ~medium) | lit_large;
            for (int p = 0; p < players; p++) {
                pcl_v o = L.own[p];
                pcl_v earned = PCL(popcount)(lit_odd & o) + (PCL(popcount)(lit_two_up & o) << 1);
                /* no player's light is over the cap (broken_invariant's B_LIGHT), so min()
                   leaves it as it is where nothing is lit */
                L.light[p] = PCL(min)(L.light[p] + earned, V(t->light_cap));
            }
        }
        if (PCL(some)(over)) {                /* the games that ended, and the next ones */
            playing = 0;
            for (int i = 0; i < PCL_WIDTH; i++) {
                while (L.phase[i] == PCL_OVER) {
                    PCL(give)(&L, i, context, finish);
                    PCL(take)(&L, i, &next, games, context, start);
                }
                playing |= L.phase[i] != PCL_IDLE;
            }
        }
    }
}

PCL_TARGET static void PCL(pcl_play)(const pc_lane_tables* t, int players, int shade,
                                     long long games, void* context, pc_lane_start start,
                                     pc_lane_finish finish) {
    /* the AVX-512 copy: a loop for each number of players (its loops over them unrolled);
       the portable copy, there to be tested, one (a third of the compile time). The shade
       test is one branch a step, the same way through a call. */
#ifdef PCL_AVX512
    if (players == 2)
        PCL(games)(t, 2, shade, games, context, start, finish);
    else if (players == 3)
        PCL(games)(t, 3, shade, games, context, start, finish);
    else
        PCL(games)(t, 4, shade, games, context, start, finish);
#else
    PCL(games)(t, players, shade, games, context, start, finish);
#endif
}

#undef PCL_FN
#undef V
#undef M
#undef LT
#undef ONES
#undef KEQ
#undef KLT
#undef KTEST
#undef KNONE
