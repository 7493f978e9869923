"""What the right answer would have been, per scenario: the ``--expected`` text a user who knows
the truth would give ``afp bisect`` (contrastive scoring). Written like the wrong answers — the
same context restated, the planted claim corrected — after the corpus was frozen; the scenarios
and recordings were not changed for it.
"""

from __future__ import annotations

EXPECTED: dict[str, str] = {
    "retail-return-window": "Sorry — kitchen appliances can only be returned within 30 days of "
    "delivery, and your EM-200 arrived on 4 March, so the return window has closed.",
    "airline-baggage": "Your Economy Light fare on QX7T2L doesn't include a checked bag; you can "
    "add one for a fee, and cabin baggage up to 10 kg is included.",
    "bank-wire-cutoff": "International wires must be submitted before 2 pm Eastern to go out the "
    "same day, so a wire sent this afternoon will go out on the next business day (fee $35).",
    "insurance-water-damage": "I'm sorry about the flooding. Good news: sudden water damage from "
    "a burst pipe is covered by your HO-3 policy, minus your $1,000 deductible.",
    "hr-parental-leave": "As a secondary caregiver you're entitled to four weeks of paid parental "
    "leave.",
    "it-vpn-error": "Error 809 means the VPN traffic is being blocked by a firewall or NAT "
    "device; try another network or ask IT to allow the VPN ports, then reconnect GlobalConnect.",
    "pharmacy-refill": "Your lisinopril refill can be picked up from Tuesday, at our Oak Plaza "
    "location.",
    "saas-seat-price": "Eight seats on Team come to $120 a month ($15 per seat) on monthly "
    "billing.",
    "devops-deploy-freeze": "No — CI is green on 4be19c2, but a deployment freeze is in effect "
    "this week, so production deploys have to wait until it ends.",
    "legal-notice-period": "Under clause 14.2 you can end the Halvorsen MSA for convenience with "
    "ninety days' written notice. (This isn't legal advice.)",
    "tax-filing-deadline": "Your next quarterly estimated payment (Q3) is due on September 15.",
    "hotel-checkin": "Check-in at Hotel Kamo Riverside starts at 3 pm on 18 April; you can leave "
    "your luggage at the front desk earlier.",
    "car-rental-age": "At 23 you will pay a young-driver fee — it applies to all renters under "
    "25. A compact is $41 a day plus the surcharge.",
    "restaurant-allergen": "Yes — our pesto contains pine nuts, so please tell your server about "
    "your allergy.",
    "telecom-roaming": "Data in Canada isn't included in Unlimited Plus; add TravelPass for $12 "
    "a day to use your allowance there.",
    "gym-cancellation": "Your 12-month contract started in January, so cancelling before it ends "
    "carries an early termination fee; you can also freeze the membership instead.",
    "logistics-eta": "ETA Friday at 09:00 at Rotterdam DC-3, after a stop for the driver's rest "
    "period. PX-2281 left Hamburg this morning with 18 pallets.",
    "university-prereq": "Not yet — Machine Learning II requires Machine Learning I, which you're "
    "still taking, so you can enroll once you've passed it.",
    "mortgage-rate": "With a 768 score and 20% down, today's 30-year fixed is about 6.625% APR "
    "(an estimate, subject to approval).",
    "museum-hours": "No, the Harbor Science Museum is closed on Mondays; it opens Tuesday to "
    "Sunday from 10 to 5.",
    "transit-night-bus": "No — the Express 100 runs only until 23:30, and there's no night bus "
    "from the airport after midnight; a taxi is the only option.",
    "vet-vaccine": "Not yet — Juniper's 3-year rabies vaccine from June 2025 is valid until June "
    "2028, so she isn't due.",
    "api-rate-limit": "On the free tier your key can make up to 60 search requests every minute.",
    "security-cve": "All seven servers are affected: the CVE covers nginx 1.25 and later, so "
    "web-01 to web-06 (1.25.3) need patching as well as web-07.",
    "loyalty-points": "A free coffee is 450 points — with 340 you need 110 more.",
    "utility-outage": "The Birch Lane outage was caused by a fallen tree on the line; crews "
    "expect to restore power by 9 pm.",
    "recipe-oven-temp": "Bake it at 250 °C: 20 minutes with the lid on, then another 25 "
    "uncovered at 230 °C.",
    "sports-fixture": "Their next home game is against Calder Town on Saturday 28th at 3 pm at "
    "Stadium Park.",
    "crypto-withdrawal": "Your 0.05 BTC withdrawal has been broadcast and needs 3 network "
    "confirmations; with 1 so far it should complete within the next half hour.",
    "library-loan": "You can keep 'The Salt Road' for 21 days, and you can renew it if nobody "
    "is waiting for it.",
    "real-estate-hoa": "The HOA dues at Alder Commons are $385 per month, which covers water, "
    "trash and exterior insurance.",
    "energy-solar": "A 7 kW array here produces about 8,400 kWh a year — most of your 9,800 "
    "kWh use — saving roughly $1,760 a year.",
    "permit-fence": "Yes — fences taller than 6 feet need a building permit; lower backyard "
    "fences are exempt.",
    "manufacturing-tolerance": "No, 24.96 mm is out of tolerance: SH-240 allows only 0.02 mm "
    "either side of 25.00 mm.",
    "weather-hike": "Saturday looks risky: thunderstorms and strong wind are forecast on the "
    "summit, so consider another day — and tell someone your route.",
    "event-refund": "Since the show was postponed to 22 August, you can either keep your tickets "
    "for the new date or ask for a full refund within 30 days.",
    "payroll-overtime": "Your 6 Sunday hours will be paid at double time (2× your hourly rate).",
    "clinic-appointment": "Yes — please fast for 8 hours before tomorrow's 8:15 draw; water is "
    "fine.",
    "warehouse-stock": "Yes, the green Trailhead 40L is in stock (12 available) and ships in "
    "3–5 business days.",
    "grant-deadline": "Full proposals for the early-career grant are due on March 3, 2 pm CET — "
    "and with your 2021 PhD you're eligible.",
    "translation-glossary": "Use 'Kasse' for 'checkout' in the German app, per the glossary.",
    "school-closure": "Yes — Maple Valley schools are open tomorrow; no closure has been "
    "announced.",
    "subscription-renewal": "It renews on 12 February 2026 for $1,320 (plus tax), the new Pro "
    "annual price. You can switch off auto-renew in billing settings.",
    "pet-food-recall": "No — the recall covers only lots 5-2301 to 5-2310, so your lot 5-2207 of "
    "Meadow Dog Adult 12 kg is not affected.",
    "ci-flaky-test": "The nightly failed because the lodash bump (a91e2) broke the cart totals; "
    "the three failing integration tests are all in test_checkout_flow.",
    "insurance-deductible": "A windshield claim falls under comprehensive, so your $500 "
    "deductible applies to your Outback's windshield.",
    "train-platform": "Platform 4 — the 08:12 to Bristol Temple Meads is running on time.",
    "dental-coverage": "Unfortunately your BrightSmile plan doesn't include orthodontic "
    "coverage, so braces for your 14-year-old aren't covered.",
}
