/* The lanes' loop (_lanes.h), included once per copy: PCL(name) names this copy's
   functions, PCL_TARGET gives them the copy's instruction set, and PCL_AVX512 picks the
   AVX-512 forms of the few operations that have one; the rest is GCC's vector C. Every
   shift count is under 64, in every lane: a vector shift past that is undefined, and
   compilers lower it differently for different targets.

   The rules as the scalar kernel has them (_kernel.pyx, docs/rules.md §3-§8), one move a
   lane a step, each condition a lane mask (all ones or zero) in place of a branch. */

#define PCL_FN PCL_TARGET static inline __attribute__((always_inline, unused))

#define V(x) ((pcl_v){} + (uint64_t)(x))
#define M(c) ((pcl_v)(c))               /* a comparison's result as a lane mask */
#define LT(a, b) M((pcl_s)(a) < (pcl_s)(b))   /* small values: a signed compare, one instruction */
#define ONES 0x0101010101010101ULL

PCL_FN pcl_v PCL(blend)(pcl_v m, pcl_v a, pcl_v b) { return (m & a) | (~m & b); }

#ifdef PCL_AVX512
PCL_FN pcl_v PCL(bytecounts)(pcl_v x) { return (pcl_v)_mm512_popcnt_epi8((__m512i)x); }
PCL_FN pcl_v PCL(popcount)(pcl_v x) { return (pcl_v)_mm512_popcnt_epi64((__m512i)x); }
PCL_FN pcl_v PCL(byte_sums)(pcl_v x) {
    return (pcl_v)_mm512_sad_epu8((__m512i)x, _mm512_setzero_si512());
}
PCL_FN int PCL(any)(pcl_v m) { return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0; }
PCL_FN pcl_v PCL(keep)(pcl_v where, pcl_v x) {     /* x in the lanes where `where` is not 0 */
    return (pcl_v)_mm512_maskz_mov_epi64(_mm512_test_epi64_mask((__m512i)where, (__m512i)where),
                                         (__m512i)x);
}
PCL_FN pcl_v PCL(min)(pcl_v a, pcl_v b) { return (pcl_v)_mm512_min_epi64((__m512i)a, (__m512i)b); }
PCL_FN pcl_v PCL(spread_byte)(pcl_v k) {           /* byte 0 of each lane into all 8 */
    return (pcl_v)_mm512_shuffle_epi8((__m512i)k, _mm512_set4_epi32(0x08080808, 0x08080808, 0, 0));
}
PCL_FN pcl_v PCL(bytes_over)(pcl_v a, pcl_v b) {   /* 0xFF in each byte where a's > b's */
    return (pcl_v)_mm512_movm_epi8(_mm512_cmpgt_epi8_mask((__m512i)a, (__m512i)b));
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
PCL_FN pcl_v PCL(spread_byte)(pcl_v k) { return k * V(ONES); }
PCL_FN pcl_v PCL(keep)(pcl_v where, pcl_v x) { return x & ~M(where == V(0)); }
PCL_FN pcl_v PCL(min)(pcl_v a, pcl_v b) { return PCL(blend)(LT(a, b), a, b); }
PCL_FN pcl_v PCL(bytes_over)(pcl_v a, pcl_v b) {   /* bytes under 128 */
    pcl_v over = ((a | V(0x80 * ONES)) - (b + V(ONES))) & V(0x80 * ONES);
    return (over >> 7) * V(0xFF);
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
    pcl_v below = ~PCL(bytes_over)(upto, PCL(spread_byte)(k & V(63)));
    pcl_v shift = (PCL(byte_sums)(below & V(ONES)) << 3) & V(63);
    pcl_v in = k - (((upto << 8) >> shift) & V(0xFF));   /* k less the bits of lower bytes */
    pcl_v byte = (x >> shift) & V(0xFF), low = byte & V(0xF);
    pcl_v low_bits = PCL(popcount)(low);
    pcl_v high = ~LT(in, low_bits);
    pcl_v index = PCL(blend)(high, (((in - low_bits) & V(3)) << 4) | (byte >> 4),
                             ((in & V(3)) << 4) | low);
    return shift + PCL(byte64)(t->nibble_select, index) + (high & V(4));
}

/* SplitMix64's finalizer (_kernel.pyx's mix64) in each lane */
PCL_FN pcl_v PCL(mix64)(pcl_v z) {
    z = (z ^ (z >> 30)) * V(0xBF58476D1CE4E5B9ULL);
    z = (z ^ (z >> 27)) * V(0x94D049BB133111EBULL);
    return z ^ (z >> 31);
}

/* REACH[size][bit] without a load: `centre`, REACH[size][centre], moved to `bit`, less
   what wrapped around a row's end (the cells more than 3 columns from it); and with the
   board's mask, which every caller applies (_build_lane_tables checks it is REACH, cell by
   cell) */
PCL_FN pcl_v PCL(reach)(const pc_lane_tables* t, pcl_v bit, pcl_v centre) {
    pcl_v up = LT(V(t->centre), bit);           /* shift counts under 64: each is defined */
    pcl_v moved = (centre << (up & (bit - V(t->centre)))) >> (~up & (V(t->centre) - bit));
    return moved & PCL(row8)(t->columns_near, bit);
}

/* §5.1's shadows with each lane's sun: by size, the cells where a piece is shaded */
PCL_FN void PCL(shadows)(const pc_lane_tables* t, pcl_v sun, pcl_v smalls, pcl_v mediums,
                         pcl_v larges, pcl_v* small, pcl_v* medium, pcl_v* large) {
    pcl_v left = (V(t->shadow_left) >> (sun << 3)) & V(0xFF);
    pcl_v right = (V(t->shadow_right) >> (sun << 3)) & V(0xFF);
#define STEP(bb) ((((bb) << left) >> right) & V(t->board))
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
    const pcl_v board = V(t->board), nplayers = V(players);
    pcl_v eq[4];
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
        /* the player to move's values, from each lane's mover */
        pcl_v own = V(0), purse = V(0), light = V(0);
        for (int p = 0; p < players; p++) {
            eq[p] = M(L.current == V(p));
            own |= eq[p] & L.own[p];
            purse |= eq[p] & L.purse[p];
            light |= eq[p] & L.light[p];
        }
        pcl_v seeds = L.seeds, smalls = L.smalls, mediums = L.mediums, larges = L.larges;
        pcl_v active = L.active, occupied = seeds | smalls | mediums | larges;
        pcl_v setup = M(L.phase == V(PCL_SETUP)), play = M(L.phase == V(PCL_PLAY));

        /* the legal moves of each kind (buyable .. collectable), counted in id order */
        pcl_v row = PCL(row16)(t->light_row, PCL(blend)(LT(V(15), light), V(15), light));
        pcl_v tops = (((purse >> PCL_PURSE_BOARD) | V(0x80808080)) - (row & V(0xFFFFFFFF)))
                     & V(0x80808080);
        pcl_v buys = ((PCL(mul32)(tops >> 7, V(0x01020408)) >> 24) & V(0xF)) & play;
        pcl_v nbuy = (V(0x4332322132212110ULL) >> (buys << 2)) & V(0xF);   /* popcount */
        pcl_v block_plant = V(0), block_grow = V(0);
        if (shade) {
            pcl_v small, medium, large;
            PCL(shadows)(t, L.sun, smalls, mediums, larges, &small, &medium, &large);
            block_plant = small & L.shade;
            block_grow = ((seeds & small) | (smalls & small) | (mediums & medium)) & L.shade;
        }
        pcl_v can_plant = play & ~M((purse & V(0xFF)) == V(0))
                          & ~LT(light, V(t->plant_cost));
        pcl_v sources = own & ~(active | seeds) & can_plant;
        pcl_v targets = board & ~(occupied | active | block_plant);
        pcl_v source[16], reach[16], before[16], plants = V(0);
        int nsources = 0;
        while (PCL(any)(sources)) {          /* each lane's sources, lowest first */
            pcl_v low = sources & -sources;
            pcl_v bit = PCL(popcount)(low - V(1)) & V(63);
            /* the centre's reach for the source's size (a tree: sizes 1-3), chosen by
               two masks: cheaper than the size's bits shifted down and a table row */
            pcl_v centre = PCL(blend)(~M((low & larges) == V(0)), V(t->centre_reach[3]),
                                      PCL(blend)(~M((low & mediums) == V(0)),
                                                 V(t->centre_reach[2]), V(t->centre_reach[1])));
            pcl_v r = PCL(keep)(low, PCL(reach)(t, bit, centre) & targets);
            source[nsources] = bit;
            reach[nsources] = r;
            before[nsources++] = plants;
            plants += PCL(popcount)(r);
            sources ^= low;
        }
        pcl_v grows = ((purse & V(0xFFFFFFFF)) + V(0x7F7F7F7F)) & (row >> 32);
        pcl_v grow = ((seeds & -((grows >> 15) & V(1))) | (smalls & -((grows >> 23) & V(1)))
                      | (mediums & -((grows >> 31) & V(1))))
                     & own & ~(active | block_grow) & play;
        pcl_v collect = own & ~active & larges & ~LT(light, V(t->collect_cost)) & play;
        pcl_v plants_at = nbuy, grows_at = plants_at + plants;
        pcl_v collects_at = grows_at + PCL(popcount)(grow);
        pcl_v end_at = collects_at + PCL(popcount)(collect);
        pcl_v place = V(t->outer) & ~occupied & ~M((purse & V(0xFF00)) == V(0)) & setup;
        pcl_v n = PCL(blend)(setup, PCL(popcount)(place), end_at + V(1));

        /* the draw: below(word, n), and the next move's word, off the game's path */
        pcl_v k = PCL(mul32)(L.word >> 32, n) >> 32;
        L.rng += V(0x9E3779B97F4A7C15ULL);
        L.word = PCL(mix64)(L.rng);
        L.moves -= setup | play;
        pcl_v is_buy = play & LT(k, plants_at);
        pcl_v is_plant = play & ~is_buy & LT(k, grows_at);
        pcl_v is_grow = play & ~LT(k, grows_at) & LT(k, collects_at);
        pcl_v is_collect = play & ~LT(k, collects_at) & LT(k, end_at);
        pcl_v is_end = play & ~LT(k, end_at);

        /* a plant's source: the last with at most k plants before it (past a lane's last
           source, `before` is all its plants, more than any plant's k) */
        pcl_v kp = k - plants_at, from = V(0), from_reach = V(0), from_before = V(0);
        if (PCL(any)(is_plant)) {
            for (int i = 0; i < nsources; i++) {
                pcl_v hit = ~LT(kp, before[i]);
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
        pcl_v column = (where & V(3)) << 3;
        pcl_v in_column = (purse >> (V(PCL_PURSE_BOARD) + column)) & V(0xFF);
        pcl_v price = (V(t->price_nibbles) >> ((((where & V(3)) << 2) + ((in_column - V(1)) & V(3))) << 2))
                      & V(0xF);
        light -= is_buy & price;
        purse += is_buy & ((V(1) << column) - (V(1) << (V(PCL_PURSE_BOARD) + column)));
        /* plant: a seed onto the target, both cells activated */
        pcl_v planted = is_plant & bit;
        seeds |= planted;
        own |= planted;
        light -= is_plant & V(t->plant_cost);
        purse -= is_plant & V(1);
        active |= planted | (is_plant & (V(1) << from));
        /* grow: the piece moves up a size */
        pcl_v grown = is_grow & bit;
        pcl_v size = ((smalls >> where) & V(1)) | (((mediums >> where) & V(1)) << 1);
        pcl_v was_seed = seeds & grown, was_small = smalls & grown, was_medium = mediums & grown;
        seeds ^= was_seed;
        smalls ^= was_seed | was_small;
        mediums ^= was_small | was_medium;
        larges |= was_medium;
        light -= is_grow & ((V(t->grow_costs) >> (size << 3)) & V(0xFF));
        /* collect: the large tree leaves */
        pcl_v collected = is_collect & bit;
        larges ^= collected;
        own ^= collected;
        light -= is_collect & V(t->collect_cost);
        /* grow, collect: the piece returns to its column if it has room */
        pcl_v returns = is_grow | is_collect;
        pcl_v back_size = PCL(blend)(is_grow, size, V(3));
        pcl_v after = purse - (is_grow & (V(1) << ((size + V(1)) << 3)));
        pcl_v slot = V(PCL_PURSE_BOARD) + (back_size << 3);
        pcl_v room = LT((after >> slot) & V(0xFF), (V(t->slots) >> (back_size << 3)) & V(0xFF));
        purse = PCL(blend)(returns, after + (room & (V(1) << slot)), purse);
        active |= returns & bit;
        if (PCL(any)(is_collect)) {          /* §6: the token of the soil, or the next lower */
            pcl_v leaves = (~M((bit & V(t->richer[0])) == V(0)) & V(1))
                           + (~M((bit & V(t->richer[1])) == V(0)) & V(1))
                           + (~M((bit & V(t->richer[2])) == V(0)) & V(1));   /* less 1 */
            pcl_v stack = V(0), has = V(0);
            for (int j = 3; j >= 0; j--) {
                pcl_v ok = ~has & ~LT(leaves, V(j)) & ~M(((L.stacks >> (8 * j)) & V(0xFF)) == V(0));
                stack = PCL(blend)(ok, V(j), stack);
                has |= ok;
            }
            pcl_v take = is_collect & has;
            pcl_v taken = ((V(t->stack_size) - L.stacks) >> (stack << 3)) & V(0xF);
            pcl_v value = PCL(byte64)(t->tokens, (stack << 4) | taken);
            for (int p = 0; p < players; p++)
                L.points[p] += take & eq[p] & value;
            L.stacks -= take & (V(1) << (stack << 3));
        }
        /* setup: a small tree placed */
        pcl_v placed = setup & bit;
        smalls |= placed;
        own |= placed;
        purse -= setup & V(0x100);

        /* the mover's values back */
        for (int p = 0; p < players; p++) {
            L.own[p] = PCL(blend)(eq[p], own, L.own[p]);
            L.purse[p] = PCL(blend)(eq[p], purse, L.purse[p]);
            L.light[p] = PCL(blend)(eq[p], light, L.light[p]);
        }
        L.seeds = seeds; L.smalls = smalls; L.mediums = mediums; L.larges = larges;

        /* §4: after a placement the next player places, or play starts */
        pcl_v trees = PCL(popcount)(occupied | placed);
        pcl_v setup_done = setup & M(trees == V(t->setup_trees * players));
        pcl_v modulo = players == 2 ? trees & V(1) : players == 4 ? trees & V(3)
                       : (V(0x210210210210210ULL) >> ((trees & V(15)) << 2)) & V(0xF);  /* % 3 */
        pcl_v current = PCL(blend)(setup & ~setup_done, modulo, L.current);
        /* §5.3, §5.4: the turn passes; after the round's last, the first player token and
           the sun move, or the game ends */
        active = PCL(blend)(is_end, V(0), active);
        pcl_v following = L.current + V(1);
        following = PCL(blend)(M(following == nplayers), V(0), following);
        pcl_v round_ends = is_end & M(following == L.first);
        current = PCL(blend)(is_end & ~round_ends, following, current);
        pcl_v over = round_ends & M(L.round == L.last_round);
        pcl_v next_round = round_ends & ~over;
        pcl_v first = L.first + V(1);
        first = PCL(blend)(M(first == nplayers), V(0), first);
        L.first = PCL(blend)(next_round, first, L.first);
        current = PCL(blend)(next_round, first, current);
        L.round = PCL(blend)(setup_done, V(1), L.round + (next_round & V(1)));
        pcl_v sun = L.sun + V(1);
        sun = PCL(blend)(M(sun == V(t->sun_positions)), V(0), sun);
        L.sun = PCL(blend)(next_round, sun, PCL(blend)(setup_done, V(0), L.sun));
        L.current = PCL(blend)(setup_done, V(0), current);
        L.phase = PCL(blend)(setup_done, V(PCL_PLAY), PCL(blend)(over, V(PCL_OVER), L.phase));
        L.active = active;
        pcl_v lit = next_round | setup_done;
        if (PCL(any)(lit)) {                 /* §5.1: photosynthesis */
            pcl_v small, medium, large;
            PCL(shadows)(t, L.sun, L.smalls, L.mediums, L.larges, &small, &medium, &large);
            /* a lit piece earns its size: a LP for each of these sets it is in */
            pcl_v lit_large = L.larges & ~large;
            pcl_v lit_medium_up = (L.mediums & ~medium) | lit_large;
            pcl_v lit_any = (L.smalls & ~small) | lit_medium_up;
            for (int p = 0; p < players; p++) {
                pcl_v o = L.own[p];
                pcl_v earned = PCL(popcount)(lit_any & o) + PCL(popcount)(lit_medium_up & o)
                               + PCL(popcount)(lit_large & o);
                /* no player's light is over the cap (broken_invariant's B_LIGHT), so min()
                   leaves it as it is where nothing is lit */
                L.light[p] = PCL(min)(L.light[p] + (lit & earned), V(t->light_cap));
            }
        }
        if (PCL(any)(over)) {                /* the games that ended, and the next ones */
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
